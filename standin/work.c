/* SPDX-License-Identifier: MIT */
/*
 * standin/work.c: one operation of the stand-in's device (a kernel, a
 * copy, a memset, a host function, an event record...), shared by stream
 * queues and graph nodes: copying it, releasing it and running it.
 */
#include <stdlib.h>
#include <string.h>

#include "standin.h"

/* Deep copy of a work item. */
void work_clone(struct work *dst, const struct work *src)
{
    *dst = *src;
    if (src->kind == W_KERNEL) {
        const struct kernel_work *k = &src->u.kernel;
        size_t size = 0;
        for (unsigned i = 0; i < k->k->nparams; i++) {
            size_t end = (size_t)((char *)k->argv[i] - (char *)k->argbuf) + k->k->size[i];
            if (end > size)
                size = end;
        }
        dst->u.kernel.argbuf = xmalloc(size);
        memcpy(dst->u.kernel.argbuf, k->argbuf, size);
        dst->u.kernel.argv = xcalloc(k->k->nparams, sizeof(void *));
        for (unsigned i = 0; i < k->k->nparams; i++)
            dst->u.kernel.argv[i] = (char *)dst->u.kernel.argbuf +
                                    ((char *)k->argv[i] - (char *)k->argbuf);
    } else if (src->kind == W_COPY && src->u.copy.staging) {
        size_t n = src->u.copy.p.extent.width * src->u.copy.p.extent.height *
                   src->u.copy.p.extent.depth;
        dst->u.copy.staging = xmalloc(n);
        memcpy(dst->u.copy.staging, src->u.copy.staging, n);
    }
}

/* Releases what a work item owns. */
void work_release(struct work *w)
{
    if (w->kind == W_KERNEL) {
        free(w->u.kernel.argbuf);
        free(w->u.kernel.argv);
    } else if (w->kind == W_COPY) {
        free(w->u.copy.staging);
    }
    memset(w, 0, sizeof *w);
}

/* Performs work item `id` of the queue; returns a device fault or cudaSuccess. */
cudaError_t work_run(struct work *w, uint64_t id)
{
    switch (w->kind) {
    case W_KERNEL:
        return kernel_run(&w->u.kernel);
    case W_COPY:
        copy_run(&w->u.copy.p, w->u.copy.staging);
        return cudaSuccess;
    case W_SET:
        set_run(&w->u.set);
        return cudaSuccess;
    case W_HOST:
        set_in_host_function(true);
        w->u.host.fn(w->u.host.userData);
        set_in_host_function(false);
        return cudaSuccess;
    case W_CALLBACK:
        set_in_host_function(true);
        w->u.callback.fn(w->u.callback.stream, cudaSuccess, w->u.callback.user);
        set_in_host_function(false);
        return cudaSuccess;
    case W_FREE:
        mem_release(w->u.mem.ptr);
        return cudaSuccess;
    case W_EVENT_RECORD:
        event_record_ran(w->u.event, id);
        return cudaSuccess;
    case W_NOP:
    case W_EVENT_WAIT:
    case W_MEM_ALLOC:
    case W_MEM_FREE:
        return cudaSuccess;
    }
    return cudaSuccess;
}
