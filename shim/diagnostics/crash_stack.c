/* SPDX-License-Identifier: MIT */
/*
 * The crash report's stack, written from a signal handler: the frames of
 * backtrace() (glibc's, through libgcc's unwinder, which crash_stack_prepare
 * loads before any signal: it allocates as it loads), each placed in its
 * module by reading /proc/self/maps with open and read into a static
 * buffer, so that a frame reads "MODULE+0xOFFSET", which `addr2line -f -e
 * MODULE 0xOFFSET` names even in a static function; then named by dladdr,
 * which is not on POSIX's list of async-signal-safe functions (it takes
 * the dynamic linker's lock, a recursive one) and so comes last, after all
 * the rest of the report is written.  One report at a time (crash_report.c
 * lets one thread write it): the buffers are static, the stack may be the
 * small alternate one.
 */
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "crash_line.h"
#include "crash_stack.h"

#define FRAMES_MAX 64
#define MODULE_PATH_MAX 384

/* Where a frame's address lies. */
struct frame_place {
    char module[MODULE_PATH_MAX]; /* the mapped file's path; "" if in none (anonymous memory, or not found) */
    uintptr_t offset;             /* the address as addr2line takes it for that file */
};

/* A line of /proc/self/maps: "START-END PERMS OFFSET DEV INODE PATH". */
struct maps_line {
    uintptr_t start, end, offset;
    bool readable;
    const char *path; /* "" for anonymous memory */
};

/* What the scan of /proc/self/maps carries from one line to the next: the current file's first mapping. */
struct maps_scan {
    char base_path[MODULE_PATH_MAX];
    uintptr_t base;
    bool base_readable;
};

static void *frames[FRAMES_MAX];
static struct frame_place places[FRAMES_MAX];
static char maps_chunk[4096];
static char maps_text[1024]; /* one line (a longer one is cut: its path shortened) */

/* Loads what backtrace() needs (libgcc's unwinder, which it loads and allocates for on first use): before any signal. */
void crash_stack_prepare(void)
{
    void *one[2];
    (void)backtrace(one, 2);
}

/* Parses the hexadecimal number at *at, moving past it. */
static uintptr_t parse_hex(const char **at)
{
    uintptr_t n = 0;
    for (;; (*at)++) {
        char c = **at;
        if (c >= '0' && c <= '9')
            n = n * 16 + (uintptr_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            n = n * 16 + (uintptr_t)(c - 'a' + 10);
        else
            return n;
    }
}

/* Moves *at past the next field and the spaces after it. */
static void skip_field(const char **at)
{
    while (**at && **at != ' ')
        (*at)++;
    while (**at == ' ')
        (*at)++;
}

/* Parses one line of /proc/self/maps (NUL-terminated); false if it is not one. */
static bool parse_maps_line(const char *text, struct maps_line *m)
{
    const char *at = text;
    m->start = parse_hex(&at);
    if (*at++ != '-')
        return false;
    m->end = parse_hex(&at);
    if (*at++ != ' ')
        return false;
    m->readable = *at == 'r';
    skip_field(&at);
    m->offset = parse_hex(&at);
    skip_field(&at); /* past the offset's end */
    skip_field(&at); /* the device */
    skip_field(&at); /* the inode */
    m->path = at;
    return true;
}

/* Copies src into dst (size MODULE_PATH_MAX), cut if longer. */
static void copy_path(char *dst, const char *src)
{
    size_t n = strlen(src);
    if (n >= MODULE_PATH_MAX)
        n = MODULE_PATH_MAX - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/*
 * The address of a frame at pc as addr2line takes it for the file mapped
 * at base (where its first page is, readable or not): the offset from base
 * for a shared library or a position-independent executable, the address
 * itself for an executable linked at a fixed address (its ELF header says
 * ET_EXEC).
 */
static uintptr_t module_offset(uintptr_t pc, uintptr_t base, bool base_readable)
{
    if (base_readable) {
        const ElfW(Ehdr) *header = (const ElfW(Ehdr) *)base;
        if (memcmp(header->e_ident, ELFMAG, SELFMAG) == 0 && header->e_type == ET_EXEC)
            return pc;
    }
    return pc - base;
}

/* Places the frames [first, count) that lie in the mapping of line m. */
static void place_frames_in(const struct maps_line *m, struct maps_scan *scan, int first, int count)
{
    if (m->path[0] != '\0' && m->offset == 0) {
        copy_path(scan->base_path, m->path);
        scan->base = m->start;
        scan->base_readable = m->readable;
    }
    for (int i = first; i < count; i++) {
        uintptr_t pc = (uintptr_t)frames[i];
        if (pc < m->start || pc >= m->end || m->path[0] == '\0' || m->path[0] == '[')
            continue;
        copy_path(places[i].module, m->path);
        bool same_file = strcmp(scan->base_path, places[i].module) == 0;
        places[i].offset = same_file ? module_offset(pc, scan->base, scan->base_readable) : pc - m->start + m->offset;
    }
}

/* Places each frame in [first, count) in its module, from /proc/self/maps; false if that cannot be read. */
static bool place_frames(int first, int count)
{
    for (int i = first; i < count; i++)
        places[i].module[0] = '\0';
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct maps_scan scan = {.base_path = ""};
    size_t used = 0;
    ssize_t n;
    while ((n = read(fd, maps_chunk, sizeof maps_chunk)) > 0) {
        for (ssize_t k = 0; k < n; k++) {
            char c = maps_chunk[k];
            if (c != '\n') {
                if (used < sizeof maps_text - 1)
                    maps_text[used++] = c;
                continue;
            }
            maps_text[used] = '\0';
            used = 0;
            struct maps_line m;
            if (parse_maps_line(maps_text, &m))
                place_frames_in(&m, &scan, first, count);
        }
    }
    close(fd);
    return true;
}

/* Appends the symbol dladdr finds for the frame at pc (its return address, unless it is the faulting one). */
static void append_symbol(struct crash_line *line, uintptr_t pc, bool faulting)
{
    Dl_info info;
    /* A return address may be past its function's end (a call as its last instruction): look up the call. */
    uintptr_t looked_up = faulting ? pc : pc - 1;
    if (dladdr((void *)looked_up, &info) == 0 || info.dli_sname == NULL || info.dli_saddr == NULL)
        return;
    crash_line_text(line, " (");
    crash_line_text(line, info.dli_sname);
    crash_line_text(line, "+");
    crash_line_hex(line, pc - (uintptr_t)info.dli_saddr);
    crash_line_text(line, ")");
}

/* Writes frame i's line: its number, address, module and offset, symbol. */
static void write_frame(int i, int number, bool faulting)
{
    struct crash_line line;
    crash_line_start(&line);
    crash_line_text(&line, "  #");
    crash_line_number(&line, (unsigned long long)number);
    crash_line_text(&line, " ");
    crash_line_hex(&line, (uintptr_t)frames[i]);
    if (places[i].module[0]) {
        crash_line_text(&line, " ");
        crash_line_text(&line, places[i].module);
        crash_line_text(&line, "+");
        crash_line_hex(&line, places[i].offset);
    }
    append_symbol(&line, (uintptr_t)frames[i], faulting);
    crash_line_write(&line);
}

/* Writes the calling thread's stack to the log, a line per frame, from the frame at pc (0, or not found: all). */
void crash_stack_write(uintptr_t pc)
{
    int count = backtrace(frames, FRAMES_MAX);
    int first = 0;
    for (int i = 0; pc && i < count; i++)
        if ((uintptr_t)frames[i] == pc) {
            first = i;
            break;
        }
    struct crash_line line;
    crash_line_start(&line);
    bool placed = place_frames(first, count);
    crash_line_text(&line, "stack, innermost frame first");
    crash_line_text(&line, placed ? " (`addr2line -f -e MODULE 0xOFFSET` names a frame MODULE+0xOFFSET, static functions too):"
                                  : " (/proc/self/maps could not be read: frames are bare addresses):");
    crash_line_write(&line);
    for (int i = first; i < count; i++) {
        int same = 0; /* a recursion, as a stack overflow's: one line for the frames that repeat this one */
        while (i + same + 1 < count && frames[i + same + 1] == frames[i])
            same++;
        write_frame(i, i - first, i == first && first > 0);
        if (same > 0) {
            crash_line_start(&line);
            crash_line_text(&line, "  ... the same frame ");
            crash_line_number(&line, (unsigned long long)same);
            crash_line_text(&line, same == 1 ? " more time" : " more times");
            crash_line_write(&line);
        }
        i += same;
    }
    if (count == FRAMES_MAX) {
        crash_line_start(&line);
        crash_line_text(&line, "  ... (the outer frames are left out)");
        crash_line_write(&line);
    }
}
