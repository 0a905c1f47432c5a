# SPDX-License-Identifier: GPL-3.0-or-later
# src/store: the working directory: store.meta, the writer lock, the pool,
# the committed jobs, the readers' lock gc waits out, the freed containers.
libdestor_a_SOURCES += src/store/store.c src/store/store.h \
	src/store/reader_lock.c src/store/reader_lock.h \
	src/store/freed_list.c src/store/freed_list.h \
	src/store/store_publish.c \
	src/store/store_cluster.c src/store/store_cluster.h \
	src/store/store_index.c src/store/store_index.h
