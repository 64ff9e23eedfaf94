"""numba's reference counts inlined after its pruning pass, as plain adds (simulator/refcount.py)."""

from __future__ import annotations

import gc

import llvmlite.binding as llvm
import numpy as np
import pytest
from numba.core.runtime import _nrt_python, rtsys

from simulator import jit, refcount
from simulator.jit import njit
from tests.core.test_soa import _kernel_body as _body


def _kernels():
    # Made afresh for each test (not cached): each compiles under the test's settings.
    @njit(cache=False)
    def keep(a, out, i):
        out[i] = a.sum()

    @njit(cache=False)
    def counted(n):
        # Arrays made in a loop, reversed on every other pass and handed to a callee: references
        # the pruning pass cannot cancel (a branch between the count and its release).
        out = np.zeros(n)
        for i in range(n):
            a = np.arange(i + 1) * 1.0
            if i % 2:
                a = a[::-1].copy()
            keep(a, out, i)
        return out

    return counted


def test_counts_left_by_the_pruning_are_inlined_plain_adds():
    counted = _kernels()
    assert counted(5).tolist() == [0.0, 1.0, 3.0, 6.0, 10.0]
    body = _body(counted)
    for call in ("@NRT_incref", "@NRT_decref", "@balance_nrt"):
        assert f"{call}" not in body, call
    assert "atomicrmw" not in body


def test_numbas_counts_without_it(monkeypatch):
    # The same kernel as numba compiles it: the counts the test above finds gone are there.
    monkeypatch.setattr(jit, "_INLINE_NRT", False)
    counted = _kernels()
    assert counted(5).tolist() == [0.0, 1.0, 3.0, 6.0, 10.0]
    body = _body(counted)
    assert "@NRT_incref" in body and "@NRT_decref" in body


def test_every_array_is_still_freed():
    counted = _kernels()

    @njit(cache=False)
    def many(n):
        kept = []
        for i in range(n):
            a = np.full(i % 7 + 1, i)
            if i % 3 == 0:
                kept.append(a)
        return kept

    counted(3)
    many(3)
    _nrt_python.memsys_enable_stats()
    try:
        gc.collect()
        before = rtsys.get_allocation_stats()
        for n in range(1, 40):
            assert counted(n)[-1] == n * (n - 1) / 2
            kept = many(n)
            assert [int(a[0]) for a in kept] == list(range(0, n, 3))
        del kept
        gc.collect()
        after = rtsys.get_allocation_stats()
    finally:
        _nrt_python.memsys_disable_stats()
    made = after.mi_alloc - before.mi_alloc
    assert made > 39 * 2
    assert made == after.mi_free - before.mi_free


def test_nogil_and_parallel_kernels_are_refused():
    # Plain counts are safe only while every kernel holds the GIL.
    for option in ("nogil", "parallel"):
        with pytest.raises(ValueError, match="nogil and parallel kernels are not supported"):
            njit(**{option: True})


def test_a_linked_copy_of_the_counts_keeps_its_name():
    # A module linked in may bring a copy of the plain counts; the declarations numba's
    # lowering left are then pointed at a second copy, not renamed by LLVM and left unresolved.
    first = llvm.parse_assembly("""
        declare void @NRT_incref(i8*)
        declare void @NRT_decref(i8*)
        define void @kernel(i8* %p) {
          call void @NRT_incref(i8* %p)
          call void @NRT_decref(i8* %p)
          ret void
        }""")
    refcount.link_refcounts(first, None)
    second = llvm.parse_assembly("""
        declare void @NRT_incref(i8*)
        define void @caller(i8* %p) {
          call void @NRT_incref(i8* %p)
          call void @kernel(i8* %p)
          ret void
        }
        declare void @kernel(i8*)""")
    second.link_in(first)
    refcount.link_refcounts(second, None)
    second.verify()
    defined = {f.name for f in second.functions if not f.is_declaration}
    declared = {f.name for f in second.functions if f.is_declaration}
    assert {"balance_nrt_incref", "balance_nrt_decref", "balance_nrt_incref_1"} <= defined
    assert declared == {"NRT_MemInfo_call_dtor"}
    assert "call void @balance_nrt_incref_1(" in str(second.get_function("caller"))
