/* test_cubin.c: what a compilation leaves in the compile cache, read back without a GPU or a
 * compiler: the sizes of a cubin's variables from its ELF64 symbol table (an image built here,
 * laid out as nvcc's: a constant array, a __device__ scalar, a function of the same name as
 * nothing asked for, and a file that is no ELF or lies about its tables). */
#include "check.h"

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "build/cubin.h"

/* An ELF64 image: header, a string table, a symbol table, section headers (null, .strtab,
 * .symtab). *n its size; malloc'd. */
static unsigned char *make_elf(size_t *n)
{
    static const char strtab[] = "\0c_Kernel\0counter\0_Z4convPf\0_ZN2ns5tableE";
    Elf64_Sym syms[5];
    memset(syms, 0, sizeof syms);
    /* names at offsets 1, 10, 18, 28 of strtab */
    syms[1] = (Elf64_Sym){.st_name = 1, .st_info = ELF64_ST_INFO(STB_LOCAL, STT_OBJECT),
                          .st_shndx = 14, .st_size = 68};
    syms[2] = (Elf64_Sym){.st_name = 10, .st_info = ELF64_ST_INFO(STB_LOCAL, STT_OBJECT),
                          .st_shndx = 19, .st_size = 4};
    syms[3] = (Elf64_Sym){.st_name = 18, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
                          .st_shndx = 17, .st_size = 512};
    syms[4] = (Elf64_Sym){.st_name = 28, .st_info = ELF64_ST_INFO(STB_LOCAL, STT_OBJECT),
                          .st_shndx = SHN_UNDEF, .st_size = 96};   /* declared, not defined */
    size_t str_off = sizeof(Elf64_Ehdr), sym_off = str_off + sizeof strtab;
    sym_off = (sym_off + 7) & ~(size_t)7;
    size_t sh_off = sym_off + sizeof syms;
    *n = sh_off + 3 * sizeof(Elf64_Shdr);
    unsigned char *b = calloc(1, *n);
    Elf64_Ehdr eh;
    memset(&eh, 0, sizeof eh);
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_EXEC;
    eh.e_machine = 190;   /* EM_CUDA */
    eh.e_shoff = sh_off;
    eh.e_ehsize = sizeof eh;
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shnum = 3;
    memcpy(b, &eh, sizeof eh);
    memcpy(b + str_off, strtab, sizeof strtab);
    memcpy(b + sym_off, syms, sizeof syms);
    Elf64_Shdr sh[3];
    memset(sh, 0, sizeof sh);
    sh[1] = (Elf64_Shdr){.sh_type = SHT_STRTAB, .sh_offset = str_off, .sh_size = sizeof strtab};
    sh[2] = (Elf64_Shdr){.sh_type = SHT_SYMTAB, .sh_offset = sym_off, .sh_size = sizeof syms,
                         .sh_link = 1, .sh_entsize = sizeof(Elf64_Sym)};
    memcpy(b + sh_off, sh, sizeof sh);
    return b;
}

static void test_symbol_sizes(void)
{
    size_t n;
    unsigned char *elf = make_elf(&n);
    const char *names[] = {"c_Kernel", "counter", "_Z4convPf", "_ZN2ns5tableE", "c_Kern",
                           "missing"};
    int64_t sizes[6];
    CHECK(cubin_symbol_sizes(elf, n, 6, names, sizes) == 0);
    CHECK(sizes[0] == 68 && sizes[1] == 4);
    CHECK(sizes[2] == -1);   /* a function, not a variable */
    CHECK(sizes[3] == -1);   /* undefined here */
    CHECK(sizes[4] == -1 && sizes[5] == -1);   /* a prefix of a name is not the name */

    /* the same image from a file */
    char path[] = "/tmp/tunekit-test-cubin-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, elf, n) == (ssize_t)n);
    close(fd);
    char err[512] = "";
    CHECK(cubin_file_symbol_sizes(path, 1, names, sizes, err, sizeof err) == 0 && sizes[0] == 68);
    unlink(path);
    CHECK(cubin_file_symbol_sizes(path, 1, names, sizes, err, sizeof err) == -1 &&
          strstr(err, path));

    /* not ELF, cut short, tables past the end */
    CHECK(cubin_symbol_sizes("not an elf file at all, but long enough to hold a header.......",
                             64, 1, names, sizes) == -1 && sizes[0] == -1);
    CHECK(cubin_symbol_sizes(elf, n - 8, 1, names, sizes) == -1);
    Elf64_Ehdr eh;
    memcpy(&eh, elf, sizeof eh);
    Elf64_Shdr sh;
    memcpy(&sh, elf + eh.e_shoff + 2 * sizeof sh, sizeof sh);
    sh.sh_size = 1 << 20;
    memcpy(elf + eh.e_shoff + 2 * sizeof sh, &sh, sizeof sh);
    CHECK(cubin_symbol_sizes(elf, n, 1, names, sizes) == -1);
    free(elf);
}

int main(void)
{
    test_symbol_sizes();
    return CHECK_DONE();
}
