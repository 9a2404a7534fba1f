/* sballoc show FILE: the linearized program of every function.
 *
 * One line per program point: its index, indentation by loop nesting, and the
 * instruction (name, opcode, engine, and the kernel source line when the
 * module records it), a loop's axis at its header and "end"
 * at its back edge. Under each instruction, one line per operand: R (read,
 * ins) or W (write, outs), the tensor and its placement type, then the
 * footprint: partitions [lo, hi), bytes per partition [lo, hi) within a block,
 * and which blocks (one, indexed by a loop axis, or a range). A footprint that
 * cannot be derived is reported like `sballoc check` does, exit 2. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sballoc/program.h"

static void print_blocks(const bir_footprint *fp)
{
    switch (fp->blocks) {
    case BIR_BLOCKS_CONST:
        printf("block %lld", (long long)fp->block);
        break;
    case BIR_BLOCKS_AXIS:
        printf("blocks %s: %lld %+lld per iteration (%lld..%lld)", fp->block_loop->axis.name,
               (long long)fp->block, (long long)fp->block_coeff, (long long)fp->block,
               (long long)fp->block_hi);
        break;
    default:
        printf("blocks all %lld..%lld", (long long)fp->block, (long long)fp->block_hi);
        break;
    }
    if (fp->pins_base) {
        printf("  base {");
        for (int i = 0, first = 1; i < 4; i++)
            if (fp->base_mask >> i & 1u) printf("%s%d", first ? "" : ",", 32 * i), first = 0;
        printf("}");
    }
}

/* Prints one operand line; fills err and returns false when its footprint fails. */
static bool print_operand(const bir_inst *in, const bir_operand *op, char rw, int indent, sba_error *err)
{
    printf("%*s%c ", indent, "", rw);
    if (op->kind != BIR_OPND_PHYSICAL_AP && op->kind != BIR_OPND_SYMBOLIC_AP) {
        printf("%s\n", op->kind_name ? op->kind_name : "operand");
        return true;
    }
    bir_footprint fp;
    if (bir_operand_footprint(in, op, &fp, err) != SBA_OK) {
        printf("%s: (invalid)\n", op->set->name);
        return false;
    }
    const bir_location *loc = op->loc ? op->loc : op->set->locs[0];
    char where[96];
    const char *type = loc->addr != BIR_NO_ADDR ? bir_location_describe(loc, where, sizeof where)
                                                : bir_memory_type_name(loc->type);
    printf("%s [%s]  partitions [%lld, %lld)  bytes [%lld, %lld)  ", op->set->name, type ? type : "?",
           (long long)fp.part_lo, (long long)fp.part_hi, (long long)fp.byte_lo, (long long)fp.byte_hi);
    print_blocks(&fp);
    printf("\n");
    return true;
}

static bool show_function(const bir_function *fn, sba_error *err)
{
    bir_linear *lin = bir_linear_new(fn, NULL, err);
    bool ok = lin != NULL;
    if (ok)
        printf("function \"%s\": %u points, loop depth %u\n", fn->name, lin->npoints, lin->max_depth);
    for (uint32_t p = 0; ok && p < lin->npoints; p++) {
        const bir_point *pt = &lin->points[p];
        const bir_inst *in = pt->inst;
        int indent = 2 * (int)lin->depth[in->index];
        printf("%5u  %*s", p, indent, "");
        if (pt->kind == BIR_PT_LOOP_END) {
            printf("end %s\n", in->axis.name);
            continue;
        }
        if (pt->kind == BIR_PT_LOOP_HEADER)
            printf("for %s in [%lld, %lld) step %lld  (%s, %lld iterations)\n", in->axis.name,
                   (long long)in->axis.lb, (long long)in->axis.ub, (long long)in->axis.stride, in->name,
                   (long long)bir_loop_trip_count(in));
        else {
            char src[96];
            printf("%s  %s  %s%s\n", in->name, in->opcode_name ? in->opcode_name : bir_opcode_name(in->opcode),
                   bir_engine_name(in->engine), bir_inst_source(in, src, sizeof src));
        }
        for (uint32_t k = 0; ok && k < in->nins; k++) ok = print_operand(in, &in->ins[k], 'R', indent + 11, err);
        for (uint32_t k = 0; ok && k < in->nouts; k++) ok = print_operand(in, &in->outs[k], 'W', indent + 11, err);
    }
    bir_linear_free(lin);
    return ok;
}

int cmd_show(int argc, char **argv)
{
    if (argc != 2) return cli_usage_error("show", "expected one FILE (usage: sballoc show FILE)");
    int rc = EXIT_OK;
    bir_module *m = cli_load(argv[1], &rc);
    if (!m) return rc;
    sba_error err;
    for (uint32_t f = 0; f < m->nfns && rc == EXIT_OK; f++)
        if (!show_function(m->fns[f], &err)) {
            fflush(stdout);
            rc = cli_report(strcmp(argv[1], "-") == 0 ? "<stdin>" : argv[1], &err);
        }
    bir_module_free(m);
    return rc;
}
