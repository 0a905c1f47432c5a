# src/storage: container format and the container pool.
libdestor_a_SOURCES += \
	src/storage/container_source.h \
	src/storage/container.c src/storage/container.h \
	src/storage/container_pool.c src/storage/container_pool.h
