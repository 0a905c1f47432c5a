/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rados_api.h: librados, loaded when a `rados` store first connects instead
 * of linked into destor. Linking it made every command, rados or not, load
 * Ceph's libraries at start (about 16 ms of CPU each; 0.1 s in the
 * sanitizer build, whose leak check scans their 130 MB of data at exit).
 *
 * The store's code calls librados by its own names: each function it uses
 * is listed in RADOS_API_FUNCTIONS, and a macro of the same name calls it
 * through the table rados_api_load() fills. Found with dlsym(RTLD_DEFAULT),
 * so a library preloaded in front of librados (tests/rados/rados_shim.c)
 * still comes first, as it does for a linked one. A function not listed
 * here is a compile error in the store's code (an undefined reference), not
 * a silent link to librados. */
#ifndef DESTOR_RADOS_API_H
#define DESTOR_RADOS_API_H

#include <glib.h>
#include <rados/librados.h>

#define RADOS_API_FUNCTIONS(X)                                                                               \
    X(rados_aio_create_completion2) X(rados_aio_get_return_value) X(rados_aio_release)                     \
    X(rados_aio_wait_for_complete) X(rados_aio_write_op_operate) X(rados_conf_read_file) X(rados_conf_set) \
    X(rados_connect) X(rados_create) X(rados_create_write_op) X(rados_ioctx_create) X(rados_ioctx_destroy) \
    X(rados_ioctx_set_namespace) X(rados_lock_exclusive) X(rados_nobjects_list_close)                       \
    X(rados_nobjects_list_next) X(rados_nobjects_list_open) X(rados_read) X(rados_release_write_op)        \
    X(rados_remove) X(rados_shutdown) X(rados_stat) X(rados_unlock) X(rados_write_full)                     \
    X(rados_write_op_create) X(rados_write_op_write_full) X(rados_write_op_write) X(rados_write_op_operate)    \
    X(rados_write_op_omap_set2) X(rados_write_op_omap_clear) X(rados_create_read_op) X(rados_release_read_op) \
    X(rados_read_op_omap_get_vals2) X(rados_read_op_operate) X(rados_omap_get_next2) X(rados_omap_get_end)    \
    X(rados_write_op_omap_cmp) X(rados_lock_shared) X(rados_read_op_stat) X(rados_read_op_read)

typedef struct {
#define RADOS_API_MEMBER(name) __typeof__(name) *name;
    RADOS_API_FUNCTIONS(RADOS_API_MEMBER)
#undef RADOS_API_MEMBER
} RadosApi;

extern RadosApi rados_api;

/* Load librados and find every function, once (later calls only say
 * whether that worked). FALSE with DESTOR_ERROR_CONFIG when the library or
 * one of its functions is missing. */
gboolean rados_api_load(GError **err);

#define rados_aio_create_completion2(...) (rados_api.rados_aio_create_completion2(__VA_ARGS__))
#define rados_aio_get_return_value(...) (rados_api.rados_aio_get_return_value(__VA_ARGS__))
#define rados_aio_release(...) (rados_api.rados_aio_release(__VA_ARGS__))
#define rados_aio_wait_for_complete(...) (rados_api.rados_aio_wait_for_complete(__VA_ARGS__))
#define rados_aio_write_op_operate(...) (rados_api.rados_aio_write_op_operate(__VA_ARGS__))
#define rados_conf_read_file(...) (rados_api.rados_conf_read_file(__VA_ARGS__))
#define rados_conf_set(...) (rados_api.rados_conf_set(__VA_ARGS__))
#define rados_connect(...) (rados_api.rados_connect(__VA_ARGS__))
#define rados_create(...) (rados_api.rados_create(__VA_ARGS__))
#define rados_create_write_op(...) (rados_api.rados_create_write_op(__VA_ARGS__))
#define rados_ioctx_create(...) (rados_api.rados_ioctx_create(__VA_ARGS__))
#define rados_ioctx_destroy(...) (rados_api.rados_ioctx_destroy(__VA_ARGS__))
#define rados_ioctx_set_namespace(...) (rados_api.rados_ioctx_set_namespace(__VA_ARGS__))
#define rados_lock_exclusive(...) (rados_api.rados_lock_exclusive(__VA_ARGS__))
#define rados_lock_shared(...) (rados_api.rados_lock_shared(__VA_ARGS__))
#define rados_read_op_stat(...) (rados_api.rados_read_op_stat(__VA_ARGS__))
#define rados_read_op_read(...) (rados_api.rados_read_op_read(__VA_ARGS__))
#define rados_nobjects_list_close(...) (rados_api.rados_nobjects_list_close(__VA_ARGS__))
#define rados_nobjects_list_next(...) (rados_api.rados_nobjects_list_next(__VA_ARGS__))
#define rados_nobjects_list_open(...) (rados_api.rados_nobjects_list_open(__VA_ARGS__))
#define rados_read(...) (rados_api.rados_read(__VA_ARGS__))
#define rados_release_write_op(...) (rados_api.rados_release_write_op(__VA_ARGS__))
#define rados_remove(...) (rados_api.rados_remove(__VA_ARGS__))
#define rados_shutdown(...) (rados_api.rados_shutdown(__VA_ARGS__))
#define rados_stat(...) (rados_api.rados_stat(__VA_ARGS__))
#define rados_unlock(...) (rados_api.rados_unlock(__VA_ARGS__))
#define rados_write_full(...) (rados_api.rados_write_full(__VA_ARGS__))
#define rados_write_op_create(...) (rados_api.rados_write_op_create(__VA_ARGS__))
#define rados_write_op_write_full(...) (rados_api.rados_write_op_write_full(__VA_ARGS__))
#define rados_write_op_write(...) (rados_api.rados_write_op_write(__VA_ARGS__))
#define rados_write_op_operate(...) (rados_api.rados_write_op_operate(__VA_ARGS__))
#define rados_write_op_omap_set2(...) (rados_api.rados_write_op_omap_set2(__VA_ARGS__))
#define rados_write_op_omap_clear(...) (rados_api.rados_write_op_omap_clear(__VA_ARGS__))
#define rados_create_read_op(...) (rados_api.rados_create_read_op(__VA_ARGS__))
#define rados_release_read_op(...) (rados_api.rados_release_read_op(__VA_ARGS__))
#define rados_read_op_omap_get_vals2(...) (rados_api.rados_read_op_omap_get_vals2(__VA_ARGS__))
#define rados_read_op_operate(...) (rados_api.rados_read_op_operate(__VA_ARGS__))
#define rados_omap_get_next2(...) (rados_api.rados_omap_get_next2(__VA_ARGS__))
#define rados_omap_get_end(...) (rados_api.rados_omap_get_end(__VA_ARGS__))
#define rados_write_op_omap_cmp(...) (rados_api.rados_write_op_omap_cmp(__VA_ARGS__))

#endif
