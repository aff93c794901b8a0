/*
 * Reconvergence points of branches: the immediate post-dominator of each
 * branch instruction, where the two sides of a divergent branch meet again.
 *
 * The graph is the function's instructions plus a virtual exit node; an
 * instruction flows to the next one, a branch also (or only, when not
 * guarded) to its target, ret/exit/trap to the exit. Post-dominators are the
 * dominators of the reversed graph, computed with the iterative algorithm of
 * Cooper, Harvey and Kennedy ("A Simple, Fast Dominance Algorithm"), which
 * needs O(instructions) memory. A branch whose post-dominator is the exit
 * (its sides never meet, or only by leaving) gets PTX_NO_PC: its paths run
 * until their lanes exit.
 */
#include "ptx.h"

#include <stdlib.h>

#define UNDEFINED (-1)

static bool ends_thread(const struct ptx_insn *insn)
{
    return insn->op == PTX_OP_RET || insn->op == PTX_OP_EXIT || insn->op == PTX_OP_TRAP ||
           insn->op == PTX_OP_BRKPT;
}

/* The successors of node i (at most 2); returns how many. */
static int successors(const struct ptx_function *f, int i, int out[2])
{
    int n = (int)f->n_code;
    if (i == n)
        return 0;
    const struct ptx_insn *insn = &f->code[i];
    bool guarded = insn->guard != PTX_NO_REG;
    int k = 0;
    if (insn->op == PTX_OP_BRA) {
        out[k++] = insn->target < (uint32_t)n ? (int)insn->target : n;
        if (guarded)
            out[k++] = i + 1 < n ? i + 1 : n;
        return k;
    }
    if (ends_thread(insn)) {
        out[k++] = n;
        if (guarded)
            out[k++] = i + 1 < n ? i + 1 : n;
        return k;
    }
    out[k++] = i + 1 < n ? i + 1 : n;
    return k;
}

/* Postorder of the reversed graph from the exit (iterative DFS). */
static int reverse_postorder(const int *pred_start, const int *preds, int nodes, int *order,
                             int *number)
{
    int *stack = malloc((size_t)nodes * sizeof *stack);
    int *next = calloc((size_t)nodes, sizeof *next);
    char *seen = calloc((size_t)nodes, 1);
    int count = 0, top = 0;
    if (!stack || !next || !seen) {
        free(stack);
        free(next);
        free(seen);
        return -1;
    }
    int root = nodes - 1;
    stack[top++] = root;
    seen[root] = 1;
    while (top > 0) {
        int v = stack[top - 1];
        int e = pred_start[v] + next[v];
        if (e < pred_start[v + 1]) {
            next[v]++;
            int w = preds[e];
            if (!seen[w]) {
                seen[w] = 1;
                stack[top++] = w;
            }
        } else {
            top--;
            number[v] = count;
            order[count++] = v;
        }
    }
    free(stack);
    free(next);
    free(seen);
    return count;
}

static int intersect(const int *idom, const int *number, int a, int b)
{
    while (a != b) {
        while (number[a] < number[b])
            a = idom[a];
        while (number[b] < number[a])
            b = idom[b];
    }
    return a;
}

/* Predecessors in CSR form: pred_start[v]..pred_start[v+1] index preds. */
static bool build_predecessors(const struct ptx_function *f, int nodes, int **pred_start,
                               int **preds)
{
    *pred_start = calloc((size_t)nodes + 1, sizeof **pred_start);
    *preds = malloc((size_t)(2 * nodes + 1) * sizeof **preds);
    if (!*pred_start || !*preds)
        return false;
    int out[2];
    for (int i = 0; i < nodes; i++)
        for (int k = successors(f, i, out); k > 0; k--)
            (*pred_start)[out[k - 1] + 1]++;
    for (int v = 0; v < nodes; v++)
        (*pred_start)[v + 1] += (*pred_start)[v];
    int *fill = calloc((size_t)nodes, sizeof *fill);
    if (!fill)
        return false;
    for (int i = 0; i < nodes; i++)
        for (int k = successors(f, i, out); k > 0; k--) {
            int s = out[k - 1];
            (*preds)[(*pred_start)[s] + fill[s]++] = i;
        }
    free(fill);
    return true;
}

/* Post-dominators: idom of the reversed graph, whose edges are the
 * successors of the original. */
static void compute_ipdom(const struct ptx_function *f, int nodes, const int *order, int count,
                          const int *number, int *idom)
{
    int root = nodes - 1;
    idom[root] = root;
    for (bool changed = true; changed;) {
        changed = false;
        for (int k = count - 2; k >= 0; k--) { /* reverse postorder, root excluded */
            int v = order[k];
            int out[2], n = successors(f, v, out), best = UNDEFINED;
            for (int j = 0; j < n; j++) {
                int s = out[j];
                if (idom[s] == UNDEFINED)
                    continue;
                best = best == UNDEFINED ? s : intersect(idom, number, s, best);
            }
            if (best != UNDEFINED && idom[v] != best) {
                idom[v] = best;
                changed = true;
            }
        }
    }
}

int ptx_compute_reconvergence(struct ptx_function *f)
{
    int nodes = (int)f->n_code + 1;
    int *pred_start = NULL, *preds = NULL;
    int *order = malloc((size_t)nodes * sizeof *order);
    int *number = malloc((size_t)nodes * sizeof *number);
    int *idom = malloc((size_t)nodes * sizeof *idom);
    int status = -1;
    if (order && number && idom && build_predecessors(f, nodes, &pred_start, &preds)) {
        for (int v = 0; v < nodes; v++)
            idom[v] = UNDEFINED, number[v] = -1;
        int count = reverse_postorder(pred_start, preds, nodes, order, number);
        if (count > 0) {
            compute_ipdom(f, nodes, order, count, number, idom);
            for (int i = 0; i < nodes - 1; i++) {
                struct ptx_insn *insn = &f->code[i];
                int p = idom[i];
                insn->reconv = p == UNDEFINED || p == nodes - 1 ? PTX_NO_PC : (uint32_t)p;
            }
            status = 0;
        }
    }
    free(pred_start);
    free(preds);
    free(order);
    free(number);
    free(idom);
    return status;
}
