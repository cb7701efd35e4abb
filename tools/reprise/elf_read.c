/* SPDX-License-Identifier: MIT */
/* A small reader of 64-bit ELF files: dynamic dependencies and symbols (no libelf needed). */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
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

/* The loader a 64-bit ELF program names (its PT_INTERP) into out; false if it names none or is no such program. */
bool elf_interpreter(const char *path, char *out, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    Elf64_Ehdr eh;
    bool found = false;
    if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
        eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr))
        for (unsigned i = 0; i < eh.e_phnum && !found; i++) {
            Elf64_Phdr ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph)
                break;
            if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz >= size)
                continue;
            found = pread(fd, out, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz;
            out[found ? ph.p_filesz : 0] = '\0';
            found = found && out[0] != '\0';
        }
    close(fd);
    return found;
}

/* A machine's name for messages (x86-64, AArch64, ...) into buf. */
static const char *machine_name(unsigned machine, unsigned elf_class, char *buf, size_t size)
{
    static const struct {
        unsigned machine;
        const char *name;
    } known[] = {{EM_X86_64, "x86-64"}, {EM_386, "i386"},       {EM_AARCH64, "AArch64"}, {EM_ARM, "32-bit ARM"},
                 {EM_PPC64, "PowerPC64"}, {EM_PPC, "PowerPC"}, {EM_RISCV, "RISC-V"},   {EM_S390, "s390"}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].machine == machine) {
            snprintf(buf, size, "%s, %d-bit", known[i].name, elf_class == ELFCLASS64 ? 64 : 32);
            return buf;
        }
    snprintf(buf, size, "ELF machine %u, %d-bit", machine, elf_class == ELFCLASS64 ? 64 : 32);
    return buf;
}

/* Whether a 64-bit ELF object's dynamic section has DF_1_PIE in DT_FLAGS_1: a program, not a library. */
static bool position_independent_program(int fd, const Elf64_Ehdr *eh)
{
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        Elf64_Phdr ph;
        if (eh->e_phentsize != sizeof ph ||
            pread(fd, &ph, sizeof ph, (off_t)(eh->e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph)
            return false;
        if (ph.p_type != PT_DYNAMIC)
            continue;
        for (size_t k = 0; k < ph.p_filesz / sizeof(Elf64_Dyn); k++) {
            Elf64_Dyn dyn;
            if (pread(fd, &dyn, sizeof dyn, (off_t)(ph.p_offset + k * sizeof dyn)) != (ssize_t)sizeof dyn ||
                dyn.d_tag == DT_NULL)
                return false;
            if (dyn.d_tag == DT_FLAGS_1)
                return (dyn.d_un.d_val & DF_1_PIE) != 0;
        }
    }
    return false;
}

/*
 * Whether the dynamic loader can preload path into this machine's programs:
 * an ELF shared library (not a program, not an object file) of the class,
 * byte order and machine of this program (/proc/self/exe); false with the
 * reason in why otherwise.
 */
bool elf_preloadable(const char *path, char *why, size_t why_size)
{
    Elf64_Ehdr own, eh;
    int self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    bool know_own = self >= 0 && pread(self, &own, sizeof own, 0) == (ssize_t)sizeof own;
    if (self >= 0)
        close(self);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, why_size, "cannot read %s: %s", path, strerror(errno));
        return false;
    }
    struct stat st;
    bool ok = false;
    char theirs[64], ours[64];
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        snprintf(why, why_size, "%s is not a shared library (not a regular file)", path);
    else if (pread(fd, &eh, EI_NIDENT, 0) != EI_NIDENT || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
        snprintf(why, why_size, "%s is not a shared library (not an ELF file)", path);
    else if (pread(fd, &eh, sizeof eh, 0) < (ssize_t)offsetof(Elf64_Ehdr, e_version))
        snprintf(why, why_size, "%s is not a shared library (its ELF header is cut short)", path);
    else if (know_own && (eh.e_ident[EI_CLASS] != own.e_ident[EI_CLASS] ||
                          eh.e_ident[EI_DATA] != own.e_ident[EI_DATA] || eh.e_machine != own.e_machine))
        snprintf(why, why_size, "%s is built for another machine (%s) than this one (%s)", path,
                 machine_name(eh.e_machine, eh.e_ident[EI_CLASS], theirs, sizeof theirs),
                 machine_name(own.e_machine, own.e_ident[EI_CLASS], ours, sizeof ours));
    else if (eh.e_type != ET_DYN)
        snprintf(why, why_size, "%s is not a shared library (an ELF %s)", path,
                 eh.e_type == ET_EXEC ? "program" : eh.e_type == ET_REL ? "object file" : "file of another type");
    else if (eh.e_ident[EI_CLASS] == ELFCLASS64 && position_independent_program(fd, &eh))
        snprintf(why, why_size, "%s is not a shared library (a position-independent program)", path);
    else
        ok = true;
    close(fd);
    return ok;
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
