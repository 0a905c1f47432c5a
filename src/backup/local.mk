# src/backup: the backup pipeline (read, chunk, hash, dedup/store, commit).
libdestor_a_SOURCES += \
	src/backup/backup_msg.h \
	src/backup/walker.c src/backup/walker.h \
	src/backup/stages.c src/backup/stages.h \
	src/backup/job_writer.c src/backup/job_writer.h \
	src/backup/backup.c src/backup/backup.h
