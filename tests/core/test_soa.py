"""simulator/soa.py: the namedtuple-like structs of arrays that kernels receive as one pointer."""

import pickle

import numpy as np
import pytest
from numba import njit

from simulator.soa import struct_of_arrays

Pair = struct_of_arrays("Pair", ["counts", "grid", "flag", "step"], module=__name__)


@njit(cache=True)
def _bump(p, i):
    p.counts[i] += p.step
    if p.flag:
        p.grid[i, 0] = 7
    return p.counts.sum()


def _pair(**kw):
    return Pair(**{"counts": np.arange(4), "grid": np.zeros((4, 2)), "flag": True, "step": 3, **kw})


def test_fields_by_name_and_position_like_a_namedtuple():
    p = _pair()
    assert p._fields == ("counts", "grid", "flag", "step")
    assert p.step == 3 and p[3] == 3 and len(p) == 4
    assert list(p)[2] is True
    assert p._asdict()["flag"] is True
    q = Pair(np.arange(2), np.zeros((2, 2)), False, step=1)
    assert q.counts.tolist() == [0, 1] and q.step == 1


def test_a_kernel_writes_into_the_same_arrays_python_reads():
    p = _pair()
    assert _bump(p, 1) == 0 + 4 + 2 + 3
    assert p.counts.tolist() == [0, 4, 2, 3]
    assert p.grid[1].tolist() == [7.0, 0.0]


def test_replace_makes_a_new_struct_and_leaves_the_old_one():
    p = _pair()
    q = p._replace(step=10, flag=False)
    assert q.step == 10 and p.step == 3
    assert q.counts is p.counts  # arrays are shared, as with a namedtuple
    _bump(q, 0)
    assert p.counts[0] == 10 and p.grid[0, 0] == 0.0


def test_pickles_by_value_and_works_in_kernels_after():
    p = pickle.loads(pickle.dumps(_pair()))
    assert isinstance(p, Pair)
    assert _bump(p, 2) == 0 + 1 + 5 + 3


def test_scalars_and_non_contiguous_arrays_get_one_type():
    # A numpy scalar becomes a Python one and a strided view a contiguous copy, so kernels
    # are not compiled again for a second layout or scalar type.
    p = _pair(step=np.int64(3), counts=np.arange(8)[::2])
    assert type(p.step) is int
    assert p.counts.flags.c_contiguous
    assert p._numba_type_ == _pair()._numba_type_


def test_immutable_and_unknown_fields_are_errors():
    p = _pair()
    with pytest.raises(AttributeError, match="immutable"):
        p.step = 4
    with pytest.raises(TypeError, match="no field 'steps'"):
        _pair(steps=1)
    with pytest.raises(TypeError, match="missing fields"):
        Pair(counts=np.zeros(1))
    with pytest.raises(ValueError, match="reserved"):
        struct_of_arrays("Bad", ["_replace"])


# ----------------------------------------------------------------------------- borrowed fields
# A struct points at its Python object's arrays without owning them, and is itself owned by
# that object alone (soa.BorrowedArray, soa._BorrowedStructModel): the kernels count no
# references on a struct or its fields (issue 22, round 11).

Outer = struct_of_arrays("Outer", ["pair", "extra"], module=__name__)


def _kernel_body(dispatcher):
    # The LLVM IR of the kernel's own function, not of its CPython wrapper (whose unboxing
    # takes and gives back a reference to the struct's MemInfo).
    ir = dispatcher.inspect_llvm(dispatcher.signatures[0])
    name = dispatcher.py_func.__name__
    bodies = [part for part in ir.split("\ndefine ")
              if f"{name}B" in (head := part.split("\n", 1)[0]) and "cpython" not in head and "cfunc" not in head]
    assert bodies, f"no LLVM function for {name}"
    return "\n".join(bodies)


@njit
def _cell(p, i):
    if p.flag and p.counts[i] > 1:
        return p.grid[i, 0]
    return 0.0


def test_reading_fields_and_nested_structs_counts_no_references(monkeypatch):
    # A loop with branches around field reads and a callee taking the struct: numba's StructRef
    # left four NRT_incref and four NRT_decref calls in this function's IR.  Compiled with
    # numba's counting (not inlined, simulator/refcount.py), so that a count would show.
    from simulator import jit

    monkeypatch.setattr(jit, "_INLINE_NRT", False)

    @njit
    def total(outer, k):
        p = outer.pair
        s = 0.0
        for i in range(p.counts.shape[0]):
            if outer.extra[i] > 0:
                s += p.counts[i] * k + _cell(p, i)
        return s

    outer = Outer(_pair(grid=np.ones((4, 2))), np.array([1.0, 1.0, 0.0, 1.0]))
    assert total(outer, 2) == 2 * (0 + 1 + 3) + 1.0
    body = _kernel_body(total)
    assert "NRT_incref" not in body and "NRT_decref" not in body


def test_a_whole_field_returned_is_the_python_objects_array():
    @njit
    def field(p):
        return p.counts

    p = _pair()
    assert field(p) is p.counts


def test_a_view_of_a_field_returned_to_python_is_an_error():
    from simulator.jit import njit as kernel

    @kernel()
    def view(p):
        return 1, p.counts[1:3]

    @kernel()
    def copied(p):
        return 1, p.counts[1:3].copy()

    with pytest.raises(RuntimeError, match="view of a struct's array field"):
        view(_pair())
    assert copied(_pair())[1].tolist() == [1, 2]


def test_a_kernel_cannot_return_a_struct_or_give_it_a_new_array():
    @njit
    def give_back(p):
        return p

    @njit
    def replace_field(p):
        p.counts = np.zeros(4, dtype=np.int64)

    with pytest.raises(Exception, match="cannot return a struct of arrays"):
        give_back(_pair())
    with pytest.raises(Exception, match="cannot become a struct field"):
        replace_field(_pair())


def test_structs_are_freed_with_their_python_objects():
    import gc

    from numba.core.runtime import _nrt_python, rtsys

    @njit
    def touch(outer):
        return outer.pair.counts.sum() + outer.extra.sum()

    touch(Outer(_pair(), np.ones(4)))
    _nrt_python.memsys_enable_stats()
    try:
        gc.collect()
        before = rtsys.get_allocation_stats()
        for _ in range(200):
            outer = Outer(_pair(), np.ones(4))
            touch(outer)
        del outer
        gc.collect()
        after = rtsys.get_allocation_stats()
    finally:
        _nrt_python.memsys_disable_stats()
    assert after.mi_alloc - before.mi_alloc >= 400  # the two structs of each Outer
    assert after.mi_alloc - before.mi_alloc == after.mi_free - before.mi_free
