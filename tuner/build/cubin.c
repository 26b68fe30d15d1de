/* cubin.c: the variables' sizes in a cubin's ELF64 symbol table (cubin.h). Every offset read from
 * the file is checked against its size before it is followed. */
#include "cubin.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/files.h"

/* 1 when [off, off + size) lies within n bytes. */
static int within(uint64_t off, uint64_t size, size_t n)
{
    return off <= n && size <= n - off;
}

int cubin_symbol_sizes(const void *elf, size_t n, int count, const char *const *names,
                       int64_t *sizes)
{
    const unsigned char *b = elf;
    for (int i = 0; i < count; i++)
        sizes[i] = -1;
    Elf64_Ehdr eh;
    if (n < sizeof eh)
        return -1;
    memcpy(&eh, b, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        !within(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), n))
        return -1;
    for (int s = 0; s < eh.e_shnum; s++) {
        Elf64_Shdr sh, strh;
        memcpy(&sh, b + eh.e_shoff + (size_t)s * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_SYMTAB)
            continue;
        if (sh.sh_entsize != sizeof(Elf64_Sym) || sh.sh_link >= eh.e_shnum ||
            !within(sh.sh_offset, sh.sh_size, n))
            return -1;
        memcpy(&strh, b + eh.e_shoff + (size_t)sh.sh_link * sizeof strh, sizeof strh);
        if (strh.sh_type != SHT_STRTAB || !within(strh.sh_offset, strh.sh_size, n))
            return -1;
        const char *str = (const char *)b + strh.sh_offset;
        for (uint64_t k = 0; k < sh.sh_size / sizeof(Elf64_Sym); k++) {
            Elf64_Sym sym;
            memcpy(&sym, b + sh.sh_offset + k * sizeof sym, sizeof sym);
            if (ELF64_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_shndx == SHN_UNDEF ||
                sym.st_name >= strh.sh_size)
                continue;
            const char *name = str + sym.st_name;
            size_t room = (size_t)(strh.sh_size - sym.st_name);
            for (int i = 0; i < count; i++) {
                size_t want = strlen(names[i]);
                if (want < room && memcmp(name, names[i], want + 1) == 0)
                    sizes[i] = (int64_t)sym.st_size;
            }
        }
        return 0;
    }
    return -1;
}

int cubin_file_symbol_sizes(const char *path, int count, const char *const *names,
                            int64_t *sizes, char *err, size_t len)
{
    size_t n = 0;
    char *elf = file_read(path, &n);
    if (!elf) {
        snprintf(err, len, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = cubin_symbol_sizes(elf, n, count, names, sizes);
    free(elf);
    if (rc != 0)
        snprintf(err, len, "%s: not an ELF64 cubin with a symbol table", path);
    return rc;
}
