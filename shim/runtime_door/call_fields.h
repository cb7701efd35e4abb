/* SPDX-License-Identifier: MIT */
/* The fields of struct call that a runtime wrapper fills, by its kind, from the hooked function's parameters. */
#ifndef REPRISE_CALL_FIELDS_H
#define REPRISE_CALL_FIELDS_H

#include "call.h"
#include "launch_attributes.h"
#include "macro_piece.h"

/*
 * CALL_FIELDS_<kind>(c), from the parameter names hooks.def gives its
 * functions, for the kinds whose calls the engine reads more of than
 * CALL_HEAD's; a kind without one fills nothing (shim/base/macro_piece.h:
 * each is a piece, PIECE and a comma first).
 */
#define CALL_FIELDS_LAUNCH(c)                                                                               \
    PIECE, ((c).func = (const void *)func, (c).grid = gridDim, (c).block = blockDim, (c).args = args,       \
            (c).shared_mem = sharedMem, (c).extra = NULL, (c).num_attrs = 0)
#define CALL_FIELDS_COPY(c) PIECE, ((c).dst = dst, (c).src = src, (c).bytes = count, (c).copy_kind = kind)
#define CALL_FIELDS_SET(c) PIECE, ((c).dst = devPtr, (c).value = value, (c).bytes = count, (c).element_size = 1)
#define CALL_FIELDS_HOST_FUNC(c) PIECE, ((c).host_fn = fn, (c).host_data = userData)
#define CALL_FIELDS_EVENT_RECORD(c) PIECE, ((c).event = event)
#define CALL_FIELDS_EVENT_WAIT(c) PIECE, ((c).event = event, (c).flags = flags)
#define CALL_FIELDS_CONFIG_PUSH(c)                                                                          \
    PIECE, ((c).grid = gridDim, (c).block = blockDim, (c).shared_mem = sharedMem, (c).config_stream = stream)
#define CALL_FIELDS_CONFIG_POP(c)                                                                           \
    PIECE, ((c).grid_out = gridDim, (c).block_out = blockDim, (c).shared_mem_out = sharedMem,               \
            (c).stream_out = stream)
#define CALL_FIELDS_EVENT_DESTROY(c) PIECE, ((c).event = event)
#define CALL_FIELDS_EVENT_RECORD_OTHER(c) PIECE, ((c).event = event)
#define CALL_FIELDS_EVENT_SYNC(c) PIECE, ((c).event = event)
#define CALL_FIELDS_EVENT_QUERY(c) PIECE, ((c).event = event)
#define CALL_FIELDS_CAPTURE_STATUS(c) PIECE, ((c).status_out = pCaptureStatus)
#define CALL_FIELDS_CAPTURE_INFO(c) PIECE, ((c).status_out = captureStatus_out)

/*
 * cudaLaunchKernelExC (hooks.def's LAUNCH_EX): the launch its configuration
 * describes, held back like cudaLaunchKernel when its launch attributes
 * allow (shim/device/launch_attributes.h: kept on its kernel node, or a
 * programmatic edge); else a boundary, LAUNCH_OTHER, and the log names the
 * attribute.  Whether it is a launch at all is decided with its fields.
 */
static inline void launch_ex_fields(struct call *c, const cudaLaunchConfig_t *config, const void *func, void **args)
{
    if (config == NULL || !launch_attrs_holdable(config->attrs, config->numAttrs, call_api_name(c->api))) {
        c->kind = CALL_LAUNCH_OTHER;
        return;
    }
    c->func = func;
    c->grid = config->gridDim;
    c->block = config->blockDim;
    c->args = args;
    c->extra = NULL;
    c->shared_mem = config->dynamicSmemBytes;
    c->attrs = config->attrs;
    c->num_attrs = config->numAttrs;
}
#define CALL_FIELDS_LAUNCH_EX(c) PIECE, launch_ex_fields(&(c), config, func, args)

/* The call a runtime wrapper describes, into c: every call's fields (CALL_HEAD), then its kind's. */
#define CALL_DESCRIBED(c, kind, api, stream)                                                                \
    do {                                                                                                    \
        CALL_HEAD(c, api, CALL_##kind, stream);                                                             \
        PIECE_OR(CALL_FIELDS_##kind(c), (void)0);                                                           \
    } while (0)

#endif
