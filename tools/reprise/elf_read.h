/* SPDX-License-Identifier: MIT */
/* A small reader of 64-bit ELF files: dynamic dependencies and symbols. */
#ifndef REPRISE_ELF_READ_H
#define REPRISE_ELF_READ_H

#include <stdbool.h>
#include <stddef.h>

/* What reprise check needs to know of one ELF object. */
struct elf_info {
    char **needed;              /* DT_NEEDED names */
    size_t needed_count;
    char **imports;             /* undefined dynamic symbols (functions it takes from others) */
    size_t import_count;
    char **defined;             /* defined function symbols, dynamic and (unless stripped) static */
    size_t defined_count;
    bool has_symtab;            /* not stripped */
    bool has_fatbin;            /* holds CUDA device code (.nv_fatbin: nvcc put it there) */
    bool dynamic;               /* has a dynamic section */
};

/* Reads path; returns false with a reason in why when it is not a 64-bit ELF object. */
bool elf_read(const char *path, struct elf_info *info, char *why, size_t why_size);
/* The loader a 64-bit ELF program names (its PT_INTERP) into out; false if it names none or is no such program. */
bool elf_interpreter(const char *path, char *out, size_t size);
/* Whether the dynamic loader can preload path (a shared library of this machine); false with the reason in why. */
bool elf_preloadable(const char *path, char *why, size_t why_size);
/* Frees what elf_read allocated. */
void elf_free(struct elf_info *info);
/* Whether name is in a list of names. */
bool elf_has(char *const *list, size_t count, const char *name);

#endif
