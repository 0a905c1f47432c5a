/* SPDX-License-Identifier: GPL-3.0-or-later */
/* device_model.h: the modelled time of cache I/O, so runs can be compared
 * on latency whatever disk the test machine has (and in simulation mode).
 *
 * One request is served at a time (closed loop). A miss reads the container
 * from the HDD: average seek + half a rotation + transfer. A hit reads it
 * from the SSD: read latency + transfer. Writing an admitted container to
 * the SSD happens in the background after the miss is served, but it
 * occupies the SSD: a later SSD read waits until queued writes finish. That
 * queueing is how the paper explains PLC-Cache's latency gain from fewer
 * writes. Rates are in MB/s with MB = 10^6 bytes (vendor convention). */
#ifndef DESTOR_CACHE_DEVICE_MODEL_H
#define DESTOR_CACHE_DEVICE_MODEL_H

#include <stddef.h>

typedef struct {
    double hdd_seek_ms;          /* average seek */
    double hdd_rpm;              /* rotation speed; latency = half a turn */
    double hdd_mb_per_s;         /* sustained transfer */
    double ssd_read_latency_us;  /* per read command */
    double ssd_read_mb_per_s;
    double ssd_write_latency_us; /* per write command */
    double ssd_write_mb_per_s;
    /* ssd-cache-compression: decompressing a hit costs the CPU the
     * container's (decompressed) bytes at these rates, serially before the
     * data is served. Defaults: the lz4 project's README (lzbench on the
     * Silesia corpus, one core of a Core i7-9700K: LZ4 1.9.0 default 4970
     * MB/s, Zstandard 1.4.0 -1 1380 MB/s). */
    double lz4_decompress_mb_per_s;
    double zstd_decompress_mb_per_s;
} DeviceModelParams;

/* 5400 rpm desktop disk (10 ms seek, 100 MB/s) and a 60 GB SATA SSD like
 * the paper's Intel 520 (80 us / 500 MB/s reads, 85 us / 200 MB/s writes of
 * incompressible data). */
void device_model_params_default(DeviceModelParams *p);

typedef struct {
    DeviceModelParams p;
    double now;            /* modelled seconds since the start */
    double ssd_free_at;    /* when the SSD finishes the work queued so far */
    double ssd_wait;       /* total time SSD reads waited behind writes */
    double ssd_write_busy; /* total time the SSD spent writing */
} DeviceModel;

void device_model_init(DeviceModel *m, const DeviceModelParams *p);

/* Service times alone (no queueing), in seconds. */
double device_model_hdd_service(const DeviceModelParams *p, size_t bytes);
double device_model_ssd_read_service(const DeviceModelParams *p, size_t bytes);
double device_model_ssd_write_service(const DeviceModelParams *p, size_t bytes);

/* Serve one read now; returns its latency (queueing included) and advances
 * the clock to its completion. */
double device_model_hdd_read(DeviceModel *m, size_t bytes);
double device_model_ssd_read(DeviceModel *m, size_t bytes);
/* Queue a background SSD write issued now; the clock does not advance. */
void device_model_ssd_write(DeviceModel *m, size_t bytes);
/* Decompress `bytes` (the decoded size) at `mb_per_s` now: returns the
 * time and advances the clock by it. */
double device_model_decompress(DeviceModel *m, size_t bytes, double mb_per_s);

#endif
