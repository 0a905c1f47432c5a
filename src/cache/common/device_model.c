/* SPDX-License-Identifier: GPL-3.0-or-later */
/* device_model.c: HDD and SSD service times and the SSD write queue. */
#include "cache/common/device_model.h"

void device_model_params_default(DeviceModelParams *p)
{
    p->hdd_seek_ms = 10.0;
    p->hdd_rpm = 5400.0;
    p->hdd_mb_per_s = 100.0;
    p->ssd_read_latency_us = 80.0;
    p->ssd_read_mb_per_s = 500.0;
    p->ssd_write_latency_us = 85.0;
    p->ssd_write_mb_per_s = 200.0;
    p->lz4_decompress_mb_per_s = 4970.0;
    p->zstd_decompress_mb_per_s = 1380.0;
}

void device_model_init(DeviceModel *m, const DeviceModelParams *p)
{
    m->p = *p;
    m->now = 0;
    m->ssd_free_at = 0;
    m->ssd_wait = 0;
    m->ssd_write_busy = 0;
}

static double transfer(size_t bytes, double mb_per_s)
{
    return mb_per_s > 0 ? (double)bytes / (mb_per_s * 1e6) : 0.0;
}

double device_model_hdd_service(const DeviceModelParams *p, size_t bytes)
{
    double half_turn = p->hdd_rpm > 0 ? 0.5 * 60.0 / p->hdd_rpm : 0.0;
    return p->hdd_seek_ms / 1e3 + half_turn + transfer(bytes, p->hdd_mb_per_s);
}

double device_model_ssd_read_service(const DeviceModelParams *p, size_t bytes)
{
    return p->ssd_read_latency_us / 1e6 + transfer(bytes, p->ssd_read_mb_per_s);
}

double device_model_ssd_write_service(const DeviceModelParams *p, size_t bytes)
{
    return p->ssd_write_latency_us / 1e6 + transfer(bytes, p->ssd_write_mb_per_s);
}

double device_model_hdd_read(DeviceModel *m, size_t bytes)
{
    double t = device_model_hdd_service(&m->p, bytes);
    m->now += t;
    return t;
}

double device_model_ssd_read(DeviceModel *m, size_t bytes)
{
    double start = m->ssd_free_at > m->now ? m->ssd_free_at : m->now;
    double done = start + device_model_ssd_read_service(&m->p, bytes);
    double latency = done - m->now;
    m->ssd_wait += start - m->now;
    m->ssd_free_at = done;
    m->now = done;
    return latency;
}

void device_model_ssd_write(DeviceModel *m, size_t bytes)
{
    double start = m->ssd_free_at > m->now ? m->ssd_free_at : m->now;
    double t = device_model_ssd_write_service(&m->p, bytes);
    m->ssd_free_at = start + t;
    m->ssd_write_busy += t;
}

double device_model_decompress(DeviceModel *m, size_t bytes, double mb_per_s)
{
    double t = transfer(bytes, mb_per_s);
    m->now += t;
    return t;
}
