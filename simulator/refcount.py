"""numba's reference counting in the kernels, inlined after its pruning pass and not atomic.

numba counts a reference on every array a kernel holds: each count is a call of `NRT_incref`
or `NRT_decref`, which its LLVM module marks `noinline` so that the reference-count pruning
pass (run after a cheap module pass) can find the calls by name and drop the pairs that cancel.
What survives the pruning stays a call, and each is an atomic add on the array's MemInfo:
about 5 % of a pb-04 game's samples, with the null test and the call around each.

After the pruning the names are no longer needed.  So in a kernel's module numba's functions
are left *declared* for the cheap pass and the pruning (`jit._LinkOnDemandLibrary` holds back
the link of numba's NRT library until then), and `link_refcounts` then renames those
declarations to functions of this module's own, linked in: the same test and count, without
`noinline`, so that the full optimisation inlines them (a NULL MemInfo, a struct's field or a
constant, then folds away).  The count is a plain add, not an atomic one: numba makes it
atomic for kernels that run outside the GIL on several threads (`nogil`, `parallel`), which
the project's `njit` refuses; every kernel here holds the GIL, and numba's C runtime (which
keeps its atomic add) also counts only under the GIL, so no two counts of one MemInfo ever
race.  Measured (docs/performance.md, round 12): inlined but atomic, no faster; plain but
called, no faster; both, pb-04 +4-5 %, pb-12 +10 %, the same games.

BALANCE_NRT_INLINE=0: numba's behaviour (its NRT library linked before the passes).
"""

from __future__ import annotations

import os

import llvmlite.binding as _llvm
from llvmlite import ir

# numba's NRT functions the pruning pass looks for, and the names they get after it.
PRUNED = {"NRT_incref": "balance_nrt_incref", "NRT_decref": "balance_nrt_decref"}

ENABLED = os.environ.get("BALANCE_NRT_INLINE", "1") != "0"

_WORD = ir.IntType(64)   # a MemInfo's first member: its reference count (size_t)
_BYTES = ir.IntType(8).as_pointer()
_module_ir: dict[tuple[str, str], str] = {}


def _build_ir(names: tuple[str, str]) -> str:
    """The two functions, as numba's `nrtdynmod` defines NRT_incref / NRT_decref (a NULL
    MemInfo is no reference; the last reference gone calls the MemInfo's destructor), with a
    plain add and no `noinline`, named `names`."""
    mod = ir.Module(name="balance_refcounts")
    fnty = ir.FunctionType(ir.VoidType(), [_BYTES])
    call_dtor = ir.Function(mod, fnty, name="NRT_MemInfo_call_dtor")
    for name, step in zip(names, (1, -1), strict=True):
        fn = ir.Function(mod, fnty, name=name)
        fn.linkage = "linkonce_odr"  # copies in modules linked into one another merge
        fn.attributes.add("nounwind")
        [ptr] = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        count_it = fn.append_basic_block("count")
        done = fn.append_basic_block("done")
        b.cbranch(b.icmp_unsigned("==", ptr, ir.Constant(_BYTES, None)), done, count_it)
        b.position_at_end(count_it)
        word = b.bitcast(ptr, _WORD.as_pointer())
        new = b.add(b.load(word), ir.Constant(_WORD, step))
        b.store(new, word)
        if step < 0:
            free = fn.append_basic_block("free")
            b.cbranch(b.icmp_unsigned("==", new, ir.Constant(_WORD, 0)), free, done)
            b.position_at_end(free)
            b.call(call_dtor, [ptr])
        b.branch(done)
        b.position_at_end(done)
        b.ret_void()
    return str(mod)


def _free_name(module, name: str) -> str:
    """`name`, or with a suffix if `module` has a function of that name already (a module
    linked in brought its copy): LLVM would rename the declaration, leaving it unresolved."""
    k = 0
    candidate = name
    while True:
        try:
            module.get_function(candidate)
        except NameError:
            return candidate
        k += 1
        candidate = f"{name}_{k}"


_NRT_DEFINES: frozenset[str] | None = None


def needs_nrt(module, nrt_library) -> bool:
    """Whether `module` declares a function numba's NRT library defines (and so, unlinked,
    would be emitted with it unresolved)."""
    global _NRT_DEFINES
    if _NRT_DEFINES is None:
        _NRT_DEFINES = frozenset(f.name for f in nrt_library._get_module_for_linking().functions
                                 if not f.is_declaration)
    return any(f.is_declaration and f.name in _NRT_DEFINES for f in module.functions)


def link_refcounts(module, nrt_module) -> None:
    """After the pruning pass: point `module`'s calls of the pruned NRT functions (declared
    there) at inlinable plain counts, then link numba's NRT library (`nrt_module`, its module for
    linking: what else the kernels call of it), whose own NRT_incref / NRT_decref no call
    reaches any more (dropped as unused by the full optimisation)."""
    names = {}
    for fn in list(module.functions):
        if fn.name in PRUNED and fn.is_declaration:
            target = _free_name(module, PRUNED[fn.name])
            names[fn.name] = target
            fn.name = target
    if names:
        key = (names.get("NRT_incref", _free_name(module, PRUNED["NRT_incref"])),
               names.get("NRT_decref", _free_name(module, PRUNED["NRT_decref"])))
        if key not in _module_ir:
            _module_ir[key] = _build_ir(key)
        module.link_in(_llvm.parse_assembly(_module_ir[key]))
    if nrt_module is not None:
        module.link_in(nrt_module, preserve=True)
