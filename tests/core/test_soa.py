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
