/* SPDX-License-Identifier: MIT */
/* A small reader of 64-bit ELF files: dynamic dependencies and symbols (no libelf needed). */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_read.h"
#include "reprise.h"

/* Appends a copy of s to a list. */
static void add(char ***list, size_t *count, const char *s)
{
    *list = xrealloc(*list, *count + 1, sizeof **list);
    char *copy = strdup(s);
    if (copy == NULL)
        die("out of memory");
    (*list)[(*count)++] = copy;
}

/* Whether [off, off+size) lies inside a file of len bytes. */
static bool inside(size_t len, unsigned long long off, unsigned long long size)
{
    return off <= len && size <= len - off;
}

/* Adds the symbols of a symbol table section (its string table is section link). */
static void read_symbols(const unsigned char *base, size_t len, const Elf64_Shdr *sh, const Elf64_Shdr *shdrs,
                         unsigned shnum, struct elf_info *info, bool dynamic)
{
    if (sh->sh_link >= shnum || sh->sh_entsize != sizeof(Elf64_Sym) || !inside(len, sh->sh_offset, sh->sh_size))
        return;
    const Elf64_Shdr *strs = &shdrs[sh->sh_link];
    if (!inside(len, strs->sh_offset, strs->sh_size) || strs->sh_size == 0)
        return;
    const char *strtab = (const char *)base + strs->sh_offset;
    const Elf64_Sym *syms = (const Elf64_Sym *)(base + sh->sh_offset);
    size_t n = sh->sh_size / sizeof *syms;
    for (size_t i = 1; i < n; i++) {
        if (syms[i].st_name >= strs->sh_size || memchr(strtab + syms[i].st_name, 0, strs->sh_size - syms[i].st_name) == NULL)
            continue;
        const char *name = strtab + syms[i].st_name;
        int type = ELF64_ST_TYPE(syms[i].st_info);
        if (name[0] == '\0' || (type != STT_FUNC && type != STT_NOTYPE && type != STT_GNU_IFUNC))
            continue;
        if (syms[i].st_shndx == SHN_UNDEF) {
            if (dynamic)
                add(&info->imports, &info->import_count, name);
        } else if (type != STT_NOTYPE) {
            add(&info->defined, &info->defined_count, name);
        }
    }
}

/* Reads path; returns false with a reason in why when it is not a 64-bit ELF object. */
bool elf_read(const char *path, struct elf_info *info, char *why, size_t why_size)
{
    memset(info, 0, sizeof *info);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, why_size, "cannot read %s: %s", path, strerror(errno));
        return false;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        close(fd);
        snprintf(why, why_size, "%s is not an ELF program (not a regular file, or too small)", path);
        return false;
    }
    size_t len = (size_t)st.st_size;
    const unsigned char *base = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        snprintf(why, why_size, "cannot map %s: %s", path, strerror(errno));
        return false;
    }
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
    bool ok = memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
              eh->e_ident[EI_DATA] == ELFDATA2LSB && eh->e_shentsize == sizeof(Elf64_Shdr) &&
              inside(len, eh->e_shoff, (unsigned long long)eh->e_shnum * sizeof(Elf64_Shdr));
    if (!ok) {
        munmap((void *)base, len);
        snprintf(why, why_size, "%s is not a 64-bit little-endian ELF program", path);
        return false;
    }
    const Elf64_Shdr *shdrs = (const Elf64_Shdr *)(base + eh->e_shoff);
    unsigned shnum = eh->e_shnum;
    const char *shstr = NULL;
    size_t shstr_size = 0;
    if (eh->e_shstrndx < shnum && inside(len, shdrs[eh->e_shstrndx].sh_offset, shdrs[eh->e_shstrndx].sh_size)) {
        shstr = (const char *)base + shdrs[eh->e_shstrndx].sh_offset;
        shstr_size = shdrs[eh->e_shstrndx].sh_size;
    }
    for (unsigned i = 0; i < shnum; i++) {
        const Elf64_Shdr *sh = &shdrs[i];
        if (shstr && sh->sh_name < shstr_size && strncmp(shstr + sh->sh_name, ".nv_fatbin", shstr_size - sh->sh_name) == 0)
            info->has_fatbin = true;
        if (sh->sh_type == SHT_DYNSYM) {
            read_symbols(base, len, sh, shdrs, shnum, info, true);
        } else if (sh->sh_type == SHT_SYMTAB) {
            info->has_symtab = true;
            read_symbols(base, len, sh, shdrs, shnum, info, false);
        } else if (sh->sh_type == SHT_DYNAMIC && sh->sh_link < shnum && inside(len, sh->sh_offset, sh->sh_size)) {
            info->dynamic = true;
            const Elf64_Shdr *strs = &shdrs[sh->sh_link];
            if (!inside(len, strs->sh_offset, strs->sh_size))
                continue;
            const Elf64_Dyn *dyn = (const Elf64_Dyn *)(base + sh->sh_offset);
            for (size_t k = 0; k < sh->sh_size / sizeof *dyn && dyn[k].d_tag != DT_NULL; k++)
                if (dyn[k].d_tag == DT_NEEDED && dyn[k].d_un.d_val < strs->sh_size)
                    add(&info->needed, &info->needed_count, (const char *)base + strs->sh_offset + dyn[k].d_un.d_val);
        }
    }
    munmap((void *)base, len);
    return true;
}

/* Frees one list of names. */
static void free_list(char **list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(list[i]);
    free(list);
}

/* Frees what elf_read allocated. */
void elf_free(struct elf_info *info)
{
    free_list(info->needed, info->needed_count);
    free_list(info->imports, info->import_count);
    free_list(info->defined, info->defined_count);
    memset(info, 0, sizeof *info);
}

/* Whether name is in a list of names. */
bool elf_has(char *const *list, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}
