/* Calling the program's own runtime from inside the shim: the unhooked functions. */
#include "config.h"

#include <dlfcn.h>
#include <stdatomic.h>

#include "real_dlsym.h"
#include "runtime.h"

static const char *const runtime_names[RT_COUNT] = {
#define RT(name, params, args) [RT_ID_##name] = #name,
#include "runtime.def"
#undef RT
};

static void *_Atomic runtime_functions[RT_COUNT];

__thread unsigned runtime_calls_known __attribute__((tls_model("initial-exec")));

/* The runtime's function for id, or NULL; found once, where the hooked ones are. */
void *runtime_function(enum runtime_id id)
{
    void *fn = atomic_load_explicit(&runtime_functions[id], memory_order_acquire);
    if (__builtin_expect(fn != NULL, 1))
        return fn;
    /* Any hooked function's real address tells which object the runtime is. */
    Dl_info info;
    void *anchor = real_function(HOOK_ID_cudaGetLastError);
    if (anchor && dladdr(anchor, &info) && info.dli_fname) {
        void *handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        if (handle) {
            fn = real_dlsym(handle, runtime_names[id]);
            dlclose(handle);
        }
    }
    if (fn == NULL)
        fn = real_dlsym(RTLD_NEXT, runtime_names[id]);
    (void)dlerror();
    if (fn)
        atomic_store_explicit(&runtime_functions[id], fn, memory_order_release);
    return fn;
}
