/* test_cubin.c: what a compilation leaves in the compile cache, read back without a GPU or a
 * compiler: the sizes of a cubin's variables from its ELF64 symbol table (an image built here,
 * laid out as nvcc's: a constant array, a __device__ scalar, a function of the same name as
 * nothing asked for, and a file that is no ELF or lies about its tables), and the meta file
 * beside it with each kernel's launch bounds (written and read back, one from before the
 * maxntid line, malformed lines) and the wording of the limit they set. */
#include "check.h"

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "build/cubin.h"
#include "core/module_meta.h"

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

/* Writes text as the meta file beside a cubin path; returns the cubin path (static). */
static const char *meta_file(const char *text)
{
    static char cubin[64];
    snprintf(cubin, sizeof cubin, "/tmp/tunekit-test-meta-%ld.cubin", (long)getpid());
    char meta[80];
    CHECK(module_meta_path(cubin, meta, sizeof meta) == 0);
    FILE *f = fopen(meta, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return cubin;
}

static void test_meta_bounds(void)
{
    char *lowered[] = {"_Z4convPf", "_Z5otherPf"};
    int n_params[] = {1, 2};
    int p0[] = {8}, p1[] = {8, 4};
    int *params[] = {p0, p1};
    int max_threads[] = {128, 0};
    char *symbols[] = {"c_Kernel"};
    char *text = module_meta_format(2, lowered, n_params, params, max_threads, 1, symbols, "");
    CHECK(text && strstr(text, "maxntid 0 128\n") && !strstr(text, "maxntid 1"));
    const char *cubin = meta_file(text ? text : "");
    free(text);
    module_meta m;
    char err[512];
    CHECK(module_meta_read(cubin, &m, err, sizeof err) == 0);
    CHECK(m.n_kernels == 2 && m.max_threads && m.max_threads[0] == 128 && m.max_threads[1] == 0);
    CHECK(m.n_params[1] == 2 && m.params[1][1] == 4 && m.n_symbols == 1);
    module_meta_clear(&m);

    /* a file from before the maxntid line: kernels without bounds */
    cubin = meta_file("kernel 0 k\nparams 0 8 4\nsymbol 0 c\nlog \n");
    CHECK(module_meta_read(cubin, &m, err, sizeof err) == 0);
    CHECK(m.n_kernels == 1 && m.max_threads[0] == 0);
    module_meta_clear(&m);
    /* malformed: no number, zero, twice, a kernel never named */
    const char *bad[] = {"kernel 0 k\nparams 0 8\nmaxntid 0\n",
                         "kernel 0 k\nparams 0 8\nmaxntid 0 0\n",
                         "kernel 0 k\nparams 0 8\nmaxntid 0 64\nmaxntid 0 64\n",
                         "kernel 0 k\nparams 0 8\nmaxntid 1 64\n",
                         "kernel 0 k\nparams 0 8\nmaxntid 0 64x\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cubin = meta_file(bad[i]);
        CHECK(module_meta_read(cubin, &m, err, sizeof err) == -1 && strstr(err, "malformed"));
    }
    char meta[80];
    module_meta_path(cubin, meta, sizeof meta);
    unlink(meta);

    char why[300];
    CHECK(module_meta_beyond_bounds(128, "conv", 256, why, sizeof why) == 1);
    CHECK_STR(why, "__launch_bounds__(128) of conv allows 128 threads a block; this config "
                   "launches 256");
    CHECK(module_meta_beyond_bounds(128, "conv", 128, why, sizeof why) == 0);
    CHECK(module_meta_beyond_bounds(0, "conv", 1024, why, sizeof why) == 0);
}

int main(void)
{
    test_symbol_sizes();
    test_meta_bounds();
    return CHECK_DONE();
}
