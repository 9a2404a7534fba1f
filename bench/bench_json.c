/* bench_json: JSON save and load throughput on a large module.
 *
 * Builds a module of about 50 MB of canonical text through the API (two
 * functions, SB / DRAM / PSUM sets, DRAM homes with aliases, copies and loops
 * with symbolic accesses), then times bir_save_buffer and bir_load_buffer on it
 * (best of three runs each), checks that the loaded module re-saves
 * byte-identical, and prints a markdown table. MB is 10^6 bytes.
 *
 * usage: bench_json [TARGET_MB]   (default 50) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/arena.h"
#include "sballoc/bir.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const sba_error *err)
{
    fprintf(stderr, "bench_json: %s: %s%s%s\n", what, err->path, err->path[0] ? ": " : "", err->message);
    exit(1);
}

static bir_operand *operands(bir_module *m, uint32_t n)
{
    bir_operand *ops = sba_arena_array(m->arena, n, sizeof *ops);
    if (!ops) {
        fprintf(stderr, "bench_json: out of memory\n");
        exit(1);
    }
    return ops;
}

/* A whole-tensor access pattern: partitions first, then the free bytes. */
static void whole(bir_module *m, bir_operand *op, bir_set *set, bir_location *loc)
{
    int64_t f = bir_set_bytes_per_block(set) / bir_dtype_size(set->dtype);
    op->kind = BIR_OPND_PHYSICAL_AP;
    op->set = set;
    op->loc = loc;
    op->dtype = set->dtype;
    op->ndims = 2;
    op->ap = sba_arena_array(m->arena, 2, sizeof *op->ap);
    if (!op->ap) {
        fprintf(stderr, "bench_json: out of memory\n");
        exit(1);
    }
    op->ap[0][0] = f;
    op->ap[0][1] = bir_set_partitions(set);
    op->ap[1][0] = 1;
    op->ap[1][1] = f;
}

typedef struct counts {
    uint64_t sets, locs, edges, insts;
} counts;

static void build_function(bir_module *m, const char *name, uint32_t nsets, counts *c)
{
    sba_error err;
    bir_function *fn = bir_function_add(m, name, &err);
    if (!fn) die("function", &err);
    bir_set **sets = malloc((size_t)nsets * sizeof *sets);
    bir_location *prev_home = NULL;
    static const uint32_t types[] = {BIR_MEM_SB, BIR_MEM_DRAM, BIR_MEM_SB, BIR_MEM_PSUM};
    for (uint32_t i = 0; i < nsets; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s_tensor_%u", name, i);
        bir_set *s = bir_set_add(fn, buf, &err);
        if (!s) die("set", &err);
        sets[i] = s;
        uint32_t type = types[i % 4];
        s->dtype = type == BIR_MEM_PSUM ? BIR_DT_FLOAT32 : BIR_DT_BFLOAT16;
        s->kind = i % 50 == 0 ? BIR_TK_EXTERNAL_INPUT : BIR_TK_INTERNAL;
        s->tensor_class = type == BIR_MEM_SB ? BIR_TC_NEURON_SB_TENSOR
                          : type == BIR_MEM_PSUM ? BIR_TC_NEURON_PSUM_TENSOR
                                                 : BIR_TC_DRAM_2D_BLOCK_TENSOR;
        s->rank = i % 3 == 0 ? 3 : 2;
        s->shape = sba_arena_array(m->arena, s->rank, sizeof *s->shape);
        if (s->rank == 3) {
            s->shape[0] = 1 + i % 4;
            s->shape[1] = 128;
            s->shape[2] = 64 << (i % 4);
            s->partition_dim = 1;
        } else {
            s->shape[0] = 32 << (i % 3);
            s->shape[1] = 512;
        }
        snprintf(buf, sizeof buf, "%s_tensor_%u_%s", name, i, bir_memory_type_name(type));
        bir_location *l = bir_location_add(s, buf, type, &err);
        if (!l) die("location", &err);
        c->locs++;
        if (type == BIR_MEM_PSUM) {
            l->has_bank = true;
            l->bank = i % 8;
            bir_location_set_pack_id_hint(l, (int32_t)(i % 4), NULL);
        }
        if (i % 3 == 0) {
            l->addr = (int64_t)(i % 100) * 1024;
            l->base = (int32_t)(i % 4) * 32;
            l->has_dims = true;
            l->dims[0] = bir_set_partitions(s);
            l->dims[1] = bir_set_bytes_per_block(s);
            bir_location_set_allocated(l, true);
        }
        if (type == BIR_MEM_SB && i % 8 == 0) {
            /* A DRAM home for the tile, must-aliased to the previous home. */
            snprintf(buf, sizeof buf, "%s_tensor_%u_home", name, i);
            bir_location *h = bir_location_add(s, buf, BIR_MEM_DRAM, &err);
            if (!h) die("home", &err);
            c->locs++;
            h->var_id = i;
            if (prev_home) {
                if (bir_location_add_alias(h, prev_home, BIR_ALIAS_MUST, &err) != SBA_OK) die("alias", &err);
                c->edges++;
            }
            prev_home = h;
        }
    }
    c->sets += nsets;
    /* The body: a copy per pair of sets, and every 64 copies a loop holding a
     * symbolic access. */
    bir_block *entry = bir_block_add(fn, NULL, "entry", &err);
    if (!entry) die("block", &err);
    for (uint32_t i = 0; i + 1 < nsets; i += 2) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s_copy_%u", name, i);
        bir_inst *in = bir_inst_add(fn, entry, buf, BIR_OP_TENSOR_COPY, &err);
        if (!in) die("instruction", &err);
        in->engine = BIR_ENG_DVE;
        in->ins = operands(m, 1);
        in->nins = 1;
        whole(m, &in->ins[0], sets[i], sets[i]->locs[0]);
        in->outs = operands(m, 1);
        in->nouts = 1;
        whole(m, &in->outs[0], sets[i + 1], sets[i + 1]->locs[0]);
        c->insts++;
        if (i % 128 == 0) {
            snprintf(buf, sizeof buf, "%s_loop_%u", name, i);
            bir_inst *loop = bir_inst_add(fn, entry, buf, BIR_OP_LOOP, &err);
            if (!loop) die("loop", &err);
            snprintf(buf, sizeof buf, "k%u", i);
            loop->axis = (bir_loop_axis){sba_arena_strdup(m->arena, buf), 0, 4, 1};
            snprintf(buf, sizeof buf, "%s_body_%u", name, i);
            bir_block *body = bir_block_add(fn, loop, buf, &err);
            if (!body) die("body", &err);
            snprintf(buf, sizeof buf, "%s_act_%u", name, i);
            bir_inst *act = bir_inst_add(fn, body, buf, BIR_OP_ACTIVATION, &err);
            if (!act) die("activation", &err);
            act->engine = BIR_ENG_ACT;
            act->ins = operands(m, 1);
            act->nins = 1;
            whole(m, &act->ins[0], sets[i], sets[i]->locs[0]);
            act->ins[0].kind = BIR_OPND_SYMBOLIC_AP;
            act->ins[0].terms = sba_arena_array(m->arena, 1, sizeof *act->ins[0].terms);
            act->ins[0].terms[0] = (bir_term){loop, 0};
            act->ins[0].nterms = 1;
            act->outs = operands(m, 1);
            act->nouts = 1;
            whole(m, &act->outs[0], sets[i], sets[i]->locs[0]);
            c->insts += 2;
        }
    }
    free(sets);
    if (bir_function_build_def_use(fn, &err) != SBA_OK) die("def-use", &err);
}

static bir_module *build(uint32_t nsets_per_fn, counts *c)
{
    memset(c, 0, sizeof *c);
    bir_module *m = bir_module_new(NULL);
    if (!m) {
        fprintf(stderr, "bench_json: out of memory\n");
        exit(1);
    }
    m->arch = "trn2";
    build_function(m, "forward", nsets_per_fn, c);
    build_function(m, "backward", nsets_per_fn, c);
    if (bir_module_failed(m)) {
        fprintf(stderr, "bench_json: out of memory building the module\n");
        exit(1);
    }
    return m;
}

static char *save(const bir_module *m, size_t *len)
{
    char *text;
    sba_error err;
    if (bir_save_buffer(m, &text, len, &err) != SBA_OK) die("save", &err);
    return text;
}

int main(int argc, char **argv)
{
    double target_mb = argc > 1 ? atof(argv[1]) : 50.0;
    if (target_mb <= 0) {
        fprintf(stderr, "usage: bench_json [TARGET_MB]\n");
        return 2;
    }
    /* Calibrate: bytes of text per set on a small module. */
    counts c;
    bir_module *probe = build(2000, &c);
    size_t plen;
    char *ptext = save(probe, &plen);
    bir_free_text(probe, ptext);
    bir_module_free(probe);
    double per_set = (double)plen / 4000.0;
    uint32_t nsets = (uint32_t)(target_mb * 1e6 / per_set / 2.0);
    if (nsets < 2) nsets = 2;

    bir_module *m = build(nsets, &c);
    size_t len = 0;
    char *text = NULL;
    double best_save = 1e30;
    for (int run = 0; run < 3; run++) {
        if (text) bir_free_text(m, text);
        double t0 = now();
        text = save(m, &len);
        double t = now() - t0;
        if (t < best_save) best_save = t;
    }
    double best_load = 1e30;
    bir_module *loaded = NULL;
    for (int run = 0; run < 3; run++) {
        if (loaded) bir_module_free(loaded);
        sba_error err;
        double t0 = now();
        loaded = bir_load_buffer(text, len, "bench", NULL, &err);
        double t = now() - t0;
        if (!loaded) die("load", &err);
        if (t < best_load) best_load = t;
    }
    size_t len2;
    char *text2 = save(loaded, &len2);
    bool identical = len2 == len && memcmp(text, text2, len) == 0;
    bir_free_text(loaded, text2);
    bir_module_free(loaded);
    bir_free_text(m, text);
    bir_module_free(m);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double mb = (double)len / 1e6;
    printf("| bench_json | |\n|---|---|\n");
    printf("| module | 2 functions, %llu sets, %llu locations, %llu alias edges, %llu instructions |\n",
           (unsigned long long)c.sets, (unsigned long long)c.locs, (unsigned long long)c.edges,
           (unsigned long long)c.insts);
    printf("| text size | %.1f MB |\n", mb);
    printf("| save (best of 3) | %.3f s, %.1f MB/s |\n", best_save, mb / best_save);
    printf("| load (best of 3) | %.3f s, %.1f MB/s |\n", best_load, mb / best_load);
    printf("| re-save byte-identical | %s |\n", identical ? "yes" : "NO");
    printf("| peak RSS | %.0f MB |\n", (double)ru.ru_maxrss * 1024.0 / 1e6);
    return identical ? 0 : 1;
}
