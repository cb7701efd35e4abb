/* SPDX-License-Identifier: MIT */
/* reprise check: whether the shim can see a program's work, without running it. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elf_read.h"
#include "json.h"
#include "reprise.h"

/* The hooked functions: the shim's exports, from shim/hooks.def. */
static const char *const hooked[] = {
#define HOOK(kind, name, params, args, stream) #name,
#include "hooks.def"
#include "cuda_libraries.h"
#undef HOOK
};
#define HOOKED_COUNT (sizeof hooked / sizeof hooked[0])

/* Libraries that launch through the driver API: the shim sees them through its cuGetProcAddress. */
static const char *const cuda_libraries[] = {CUDA_LIBRARIES};

/* Symbols whose definition inside an object means a statically linked runtime. */
static const char *const static_markers[] = {
    "cudaLaunchKernel", "cudaMalloc", "cudaStreamSynchronize", "__cudaRegisterFatBinary", "__cudaLaunchKernel",
};

/* One object of the program: the program itself or a library it loads. */
struct object {
    char *name, *path;          /* path NULL when it was not found */
    struct elf_info elf;
    bool read;
};

/* Everything found, for the plain and the JSON report. */
struct findings {
    char program_path[PATH_MAX];
    struct object *objects;
    size_t count;
    const char *runtime;        /* "dynamic", "static" or "none" */
    const char *static_symbol, *static_where;
    bool interpreter;           /* Python and the like: CUDA comes later, by dlopen */
    char torch_lib[PATH_MAX];   /* a Python interpreter's PyTorch CUDA library, examined in its place */
    bool fatbin_only;           /* CUDA device code but no runtime symbols seen (stripped static binary) */
};

/* The last part of a path. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Whether a library name is a CUDA runtime (libcudart.so.13, libcudart_standin.so: any libcudart*.so*). */
static bool is_runtime(const char *name)
{
    name = base_name(name);
    return strncmp(name, "libcudart", 9) == 0 && strstr(name, ".so") != NULL;
}

/* Which driver-API library a name is, or NULL. */
static const char *driver_launcher(const char *name)
{
    name = base_name(name);
    for (size_t i = 0; i < sizeof cuda_libraries / sizeof cuda_libraries[0]; i++) {
        size_t n = strlen(cuda_libraries[i]);
        if (strncmp(name, cuda_libraries[i], n) == 0 && (name[n] == '.' || name[n] == '_' || name[n] == '-'))
            return cuda_libraries[i];
    }
    return NULL;
}

/* Finds a program as the shell would (PATH when it has no slash) into out; false if not found. */
static bool resolve_program(const char *program, char *out, size_t size)
{
    if (strchr(program, '/')) {
        snprintf(out, size, "%s", program);
        return access(out, F_OK) == 0;
    }
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        snprintf(out, size, "%.*s/%s", (int)(len ? len : 1), len ? path : ".", program);
        if (access(out, X_OK) == 0)
            return true;
        path += len + (path[len] == ':');
    }
    return false;
}

/* If path is a script (#!), replaces it with its interpreter (through /usr/bin/env too); true if it did. */
static bool follow_script(char *path, size_t size)
{
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return false;
    char line[PATH_MAX];
    bool script = fgets(line, sizeof line, in) && strncmp(line, "#!", 2) == 0;
    fclose(in);
    if (!script)
        return false;
    char interp[PATH_MAX], arg[PATH_MAX] = "";
    if (sscanf(line + 2, " %4095s %4095s", interp, arg) < 1)
        return false;
    if (strcmp(base_name(interp), "env") == 0 && arg[0])
        return resolve_program(arg, path, size);
    snprintf(path, size, "%s", interp);
    return true;
}

/* Adds an object to the findings and reads it; why it could not be read goes to why. */
static struct object *add_object(struct findings *f, const char *name, const char *path, char *why, size_t why_len)
{
    f->objects = xrealloc(f->objects, f->count + 1, sizeof *f->objects);
    struct object *o = &f->objects[f->count++];
    memset(o, 0, sizeof *o);
    o->name = strdup(name);
    o->path = path ? strdup(path) : NULL;
    if (o->path)
        o->read = elf_read(o->path, &o->elf, why, why_len);
    return o;
}

/* Whether an object of this name was added already. */
static bool have_object(const struct findings *f, const char *name)
{
    for (size_t i = 0; i < f->count; i++)
        if (strcmp(f->objects[i].name, name) == 0)
            return true;
    return false;
}

/*
 * Starts argv (argv[0] searched in PATH when it has no slash) with
 * LD_PRELOAD cleared and its stderr discarded; returns its stdout to read
 * and its pid, or NULL (errno set) if it could not be started.
 */
static FILE *run_reading(char *const argv[], pid_t *pid)
{
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return NULL;
    *pid = fork();
    if (*pid < 0) {
        int saved = errno;
        close(pipefd[0]);
        close(pipefd[1]);
        errno = saved;
        return NULL;
    }
    if (*pid == 0) {
        dup2(pipefd[1], 1);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        close(pipefd[0]);
        close(pipefd[1]);
        unsetenv("LD_PRELOAD");
        execvp(argv[0], argv);
        _exit(127);
    }
    close(pipefd[1]);
    FILE *in = fdopen(pipefd[0], "r");
    if (in == NULL) {
        int saved = errno;
        close(pipefd[0]);
        waitpid(*pid, NULL, 0);
        errno = saved;
    }
    return in;
}

/* Closes what run_reading returned and waits for its command. */
static void finish_reading(FILE *in, pid_t pid)
{
    fclose(in);
    waitpid(pid, NULL, 0);
}

/*
 * Asks a Python interpreter where PyTorch is, without importing it
 * (importlib.util.find_spec only locates the package), and fills
 * f->torch_lib with its CUDA library if there is one.  PyTorch loads its
 * CUDA libraries with dlopen, so they are not among the interpreter's own.
 */
static void find_torch(struct findings *f)
{
    char *const argv[] = {f->program_path, "-c",
                          "import importlib.util as u; s = u.find_spec('torch'); "
                          "print(s.submodule_search_locations[0] if s and s.submodule_search_locations else '')",
                          NULL};
    pid_t pid;
    FILE *in = run_reading(argv, &pid);
    if (in == NULL)
        return;
    char dir[PATH_MAX] = "";
    size_t n = fread(dir, 1, sizeof dir - 1, in);
    finish_reading(in, pid);
    dir[n] = '\0';
    dir[strcspn(dir, "\n")] = '\0';
    if (dir[0] == '\0')
        return;
    int n_lib = snprintf(f->torch_lib, sizeof f->torch_lib, "%s/lib/libtorch_cuda.so", dir);
    if (n_lib < 0 || (size_t)n_lib >= sizeof f->torch_lib || access(f->torch_lib, R_OK) != 0)
        f->torch_lib[0] = '\0';
}

/* Runs ldd on an object (LD_PRELOAD cleared) and adds every library it resolves. */
static void add_libraries(struct findings *f, const char *object_path)
{
    char *const argv[] = {"ldd", (char *)object_path, NULL};
    pid_t pid;
    FILE *in = run_reading(argv, &pid);
    if (in == NULL)
        die("cannot run ldd: %s", strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, in) > 0) {
        char name[PATH_MAX], path[PATH_MAX];
        /* "\tlibfoo.so.1 => /path/libfoo.so.1 (0x...)" or "\tlibfoo.so.1 => not found" */
        if (sscanf(line, " %4095s => %4095s", name, path) == 2 && strchr(name, '/') == NULL && !have_object(f, name)) {
            char why[PATH_MAX + 100];
            add_object(f, name, strcmp(path, "not") == 0 ? NULL : path, why, sizeof why);
        }
    }
    free(line);
    finish_reading(in, pid);
}

/* Gathers the findings for a program. */
static void examine(struct findings *f)
{
    char why[PATH_MAX + 100];
    const struct object *program = add_object(f, base_name(f->program_path), f->program_path, why, sizeof why);
    if (!program->read)
        die("%s", why);
    if (program->elf.dynamic)
        add_libraries(f, f->program_path);
    const char *prog = base_name(f->program_path);
    f->interpreter = strncmp(prog, "python", 6) == 0;
    if (f->interpreter) {
        find_torch(f);
        if (f->torch_lib[0]) {
            add_object(f, base_name(f->torch_lib), f->torch_lib, why, sizeof why);
            add_libraries(f, f->torch_lib);
        }
    }
    f->runtime = "none";
    for (size_t i = 0; i < f->count; i++) {
        struct object *o = &f->objects[i];
        if (strncmp(o->name, "libpython", 9) == 0)
            f->interpreter = true;
        if (is_runtime(o->name)) {
            f->runtime = "dynamic";
            continue;
        }
        if (!o->read)
            continue;
        for (size_t k = 0; k < sizeof static_markers / sizeof static_markers[0] && !f->static_symbol; k++)
            if (elf_has(o->elf.defined, o->elf.defined_count, static_markers[k])) {
                f->static_symbol = static_markers[k];
                f->static_where = o->name;
            }
        if (o->elf.has_fatbin && !o->elf.has_symtab && !f->static_symbol)
            f->fatbin_only = true;
    }
    if (strcmp(f->runtime, "none") == 0 && (f->static_symbol || f->fatbin_only))
        f->runtime = "static";
}

/* The hooked functions an object imports, into a list; returns how many. */
static size_t hooked_imports(const struct object *o, const char **out)
{
    size_t n = 0;
    if (!o->read || is_runtime(o->name))
        return 0;
    for (size_t k = 0; k < HOOKED_COUNT; k++)
        if (elf_has(o->elf.imports, o->elf.import_count, hooked[k]))
            out[n++] = hooked[k];
    return n;
}

/* Whether an object links the driver API (libcuda.so) directly. */
static bool needs_driver(const struct object *o)
{
    for (size_t k = 0; o->read && k < o->elf.needed_count; k++)
        if (strncmp(o->elf.needed[k], "libcuda.so", 10) == 0)
            return true;
    return false;
}

/* Whether an object launches through the driver API: a known library that does, or one linking libcuda itself. */
static bool launches_through_driver(const struct object *o)
{
    return driver_launcher(o->name) || (needs_driver(o) && !is_runtime(o->name));
}

/* Prints the findings for people. */
static void print_plain(const struct findings *f)
{
    printf("%s:\n", f->program_path);
    if (strcmp(f->runtime, "dynamic") == 0) {
        for (size_t i = 0; i < f->count; i++)
            if (is_runtime(f->objects[i].name))
                printf("  links the CUDA runtime dynamically: %s => %s%s\n", f->objects[i].name,
                       f->objects[i].path ? f->objects[i].path : "not found",
                       strstr(f->objects[i].name, "standin") ? " (the CPU stand-in of reprise's tests)" : "");
    } else if (strcmp(f->runtime, "static") == 0) {
        if (f->static_symbol)
            printf("  links the CUDA runtime statically: %s is defined inside %s\n", f->static_symbol, f->static_where);
        else
            printf("  holds CUDA device code (.nv_fatbin) but no libcudart.so: the CUDA runtime is probably linked "
                   "statically (the program is stripped)\n");
    } else {
        printf("  does not link the CUDA runtime (no libcudart*.so, no CUDA runtime functions defined)\n");
    }
    const char *names[HOOKED_COUNT];
    size_t total = 0;
    for (size_t i = 0; i < f->count; i++) {
        size_t n = hooked_imports(&f->objects[i], names);
        if (n == 0)
            continue;
        total += n;
        printf("  %s imports %zu of the %zu hooked functions:", f->objects[i].name, n, HOOKED_COUNT);
        for (size_t k = 0; k < n; k++)
            printf(" %s", names[k]);
        printf("\n");
    }
    bool hidden = false;
    for (size_t i = 0; i < f->count; i++) {
        const struct object *o = &f->objects[i];
        if (launches_through_driver(o)) {
            printf("  %s launches through the driver API (seen through the shim's cuGetProcAddress and dlsym)%s\n",
                   o->name, driver_launcher(o->name) ? "" : " (it links libcuda.so directly)");
            hidden = true;
        }
        if (!o->path)
            printf("  %s: not found (ldd); not examined\n", o->name);
    }
    printf("verdict: ");
    if (strcmp(f->runtime, "static") == 0)
        printf("the shim sees this program's work through the driver API: its statically linked runtime reaches "
               "libcuda through cuGetProcAddress, which the shim wraps, so its launches, copies, sets and events "
               "are held back and graphed as a dynamic program's are; run it with `reprise run`\n");
    else if (strcmp(f->runtime, "dynamic") == 0 && hidden)
        printf("the shim sees its runtime calls (%zu hooked functions imported), and a loaded library launches "
               "through the driver API, whose calls the shim sees too: their launches, copies and sets are graphed "
               "with the program's own, and their other calls (syncs, allocations) end a region; run it with "
               "`reprise run`\n",
               total);
    else if (strcmp(f->runtime, "dynamic") == 0)
        printf("the shim can see its work (%zu hooked functions imported); run it with `reprise run`\n", total);
    else
        printf("no CUDA work for the shim to see%s\n",
               f->interpreter ? "" : ", unless the program loads the CUDA runtime itself with dlopen (plugins)");
    if (f->interpreter && f->torch_lib[0])
        printf("note: %s is an interpreter: PyTorch's CUDA library %s and what it loads were examined in its "
               "place; other modules' libraries come by dlopen, unseen here (`reprise run --mode observe` shows "
               "what reaches the shim)\n",
               base_name(f->program_path), f->torch_lib);
    else if (f->interpreter)
        printf("note: %s is an interpreter and no PyTorch was found for it: CUDA libraries its modules load with "
               "dlopen are unseen here; run it with `reprise run --mode observe` to see what reaches the shim\n",
               base_name(f->program_path));
}

/* Writes a JSON array of strings. */
static void json_list(const char *const *items, size_t n)
{
    putchar('[');
    for (size_t k = 0; k < n; k++) {
        if (k)
            putchar(',');
        json_write_string(stdout, items[k]);
    }
    putchar(']');
}

/* Prints the findings as one JSON object. */
static void print_json(const struct findings *f)
{
    printf("{\"program\":");
    json_write_string(stdout, f->program_path);
    printf(",\"runtime\":\"%s\",\"static_evidence\":", f->runtime);
    if (f->static_symbol) {
        printf("{\"symbol\":");
        json_write_string(stdout, f->static_symbol);
        printf(",\"in\":");
        json_write_string(stdout, f->static_where);
        printf("}");
    } else {
        printf(f->fatbin_only ? "{\"section\":\".nv_fatbin\"}" : "null");
    }
    printf(",\"runtime_libraries\":[");
    bool first = true, hidden = false;
    for (size_t i = 0; i < f->count; i++)
        if (is_runtime(f->objects[i].name)) {
            printf("%s{\"name\":", first ? "" : ",");
            json_write_string(stdout, f->objects[i].name);
            printf(",\"path\":");
            f->objects[i].path ? json_write_string(stdout, f->objects[i].path) : (void)fputs("null", stdout);
            printf("}");
            first = false;
        }
    printf("],\"hooked_total\":%zu,\"hooked_imports\":{", HOOKED_COUNT);
    first = true;
    const char *names[HOOKED_COUNT];
    for (size_t i = 0; i < f->count; i++) {
        size_t n = hooked_imports(&f->objects[i], names);
        if (n == 0)
            continue;
        printf("%s", first ? "" : ",");
        json_write_string(stdout, f->objects[i].name);
        putchar(':');
        json_list(names, n);
        first = false;
    }
    printf("},\"driver_api_libraries\":[");
    first = true;
    for (size_t i = 0; i < f->count; i++) {
        const struct object *o = &f->objects[i];
        if (launches_through_driver(o)) {
            printf("%s", first ? "" : ",");
            json_write_string(stdout, o->name);
            first = false;
            hidden = true;
        }
    }
    printf("],\"not_found\":[");
    first = true;
    for (size_t i = 0; i < f->count; i++)
        if (!f->objects[i].path) {
            printf("%s", first ? "" : ",");
            json_write_string(stdout, f->objects[i].name);
            first = false;
        }
    const char *advice = strcmp(f->runtime, "static") == 0 ? "run it with reprise run: the driver API is seen"
                         : strcmp(f->runtime, "none") == 0 ? "no CUDA runtime linked: nothing to see"
                         : hidden ? "run it with reprise run: the driver-API library's work is graphed too"
                                  : "run it with reprise run";
    printf("],\"torch_library\":");
    json_write_string(stdout, f->torch_lib);
    printf(",\"interpreter\":%s,\"shim_sees_work\":%s,\"advice\":", f->interpreter ? "true" : "false",
           strcmp(f->runtime, "none") != 0 ? "true" : "false");
    json_write_string(stdout, advice);
    printf("}\n");
}

/* reprise check [--json] PROGRAM: returns the exit status. */
int cmd_check(int argc, char **argv)
{
    bool json = false;
    const char *program = NULL;
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage();
            return 0;
        } else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (argv[i][0] == '-') {
            die("unknown option '%s' for reprise check; see reprise --help", argv[i]);
        } else {
            break;
        }
    }
    if (i >= argc)
        die("no program given: reprise check [--json] PROGRAM");
    /* Arguments after the program (python3 -c '...') are accepted and ignored: check never runs it. */
    program = argv[i];
    struct findings f = {0};
    if (!resolve_program(program, f.program_path, sizeof f.program_path))
        die("cannot find program %s%s", program, strchr(program, '/') ? "" : " in PATH");
    char script[PATH_MAX];
    snprintf(script, sizeof script, "%s", f.program_path);
    for (int depth = 0; depth < 4 && follow_script(f.program_path, sizeof f.program_path); depth++)
        if (!json)
            printf("%s is a script: checking its interpreter %s\n", script, f.program_path);
    examine(&f);
    if (json)
        print_json(&f);
    else
        print_plain(&f);
    for (size_t k = 0; k < f.count; k++) {
        free(f.objects[k].name);
        free(f.objects[k].path);
        elf_free(&f.objects[k].elf);
    }
    free(f.objects);
    /* 0: the shim can see the program's work (a dynamic or static runtime); 1: it links no CUDA runtime. */
    return strcmp(f.runtime, "none") != 0 ? 0 : 1;
}
