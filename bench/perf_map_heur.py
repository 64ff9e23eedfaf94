"""A perf map of numba's compiled code, and a perf run of heuristic games that uses it.

numba keeps no symbols perf can read: this records the object code of every library numba
loads or compiles (hooks on its MCJIT object cache), reads each one's ELF symbol table (local,
global and weak functions: callees linked into a kernel keep their own symbols there), places
each section by the address the engine gives one global function in it, and writes
/tmp/perf-PID.map.  Then `perf record` on this process while it plays games:

    python bench/perf_map_heur.py pb-04 --seconds 20        # prints the top symbols (self)
    python bench/perf_map_heur.py pb-12 --annotate enemy_part   # ... and samples by instruction

Samples in NRT_incref/NRT_decref (leaves that push no frame) are also charged to their caller:
the return address at the top of the sampled user stack (`--call-graph dwarf,64`), read from
the data file where `perf report -D` says each sample's stack is.
(The heuristic helper's copy, round 10; the engine helper's is bench/perf_map.py.)
"""

from __future__ import annotations

import argparse
import bisect
import collections
import os
import re
import struct
import subprocess
import sys
import time

_OBJECTS: list = []  # (library, ELF bytes)


def install() -> None:
    """Record the object code of every library numba compiles or loads from now on."""
    from numba.core.codegen import CPUCodeLibrary

    compiled, getbuffer = CPUCodeLibrary._object_compiled_hook, CPUCodeLibrary._object_getbuffer_hook

    def on_compiled(ll_module, buf):
        lib = getattr(ll_module, "_CPUCodeLibrary__library", None)
        if lib is not None:
            _OBJECTS.append((lib, bytes(buf)))
        return compiled(ll_module, buf)

    def on_getbuffer(ll_module):
        buf = getbuffer(ll_module)
        lib = getattr(ll_module, "_CPUCodeLibrary__library", None)
        if lib is not None and buf:
            _OBJECTS.append((lib, bytes(buf)))
        return buf

    CPUCodeLibrary._object_compiled_hook = staticmethod(on_compiled)
    CPUCodeLibrary._object_getbuffer_hook = staticmethod(on_getbuffer)
    import llvmlite.binding as ll  # the engine holds the hooks it was made with: set them again
    from numba.core.registry import cpu_target

    engine = cpu_target.target_context.codegen()._engine._ee
    engine.set_object_cache(on_compiled, on_getbuffer)
    del ll


def elf_functions(buf: bytes):
    """(section index, name, value, size, binding) of each function symbol of an ELF64 object."""
    shoff, = struct.unpack_from("<Q", buf, 0x28)
    shentsize, shnum, _ = struct.unpack_from("<HHH", buf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", buf, shoff + i * shentsize) for i in range(shnum)]
    for sec in sections:
        if sec[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sec[6]]
        for off in range(sec[4], sec[4] + sec[5], 24):
            name_off, info, _, shndx, value, size = struct.unpack_from("<IBBHQQ", buf, off)
            if info & 0xF != 2 or shndx == 0 or shndx >= 0xFF00:
                continue
            start = strtab[4] + name_off
            name = buf[start:buf.index(b"\0", start)].decode()
            yield shndx, name, value, size, info >> 4


def write_map() -> str:
    """Writes /tmp/perf-PID.map for the object code recorded so far; returns its path."""
    from numba.core.registry import cpu_target

    engine = cpu_target.target_context.codegen()._engine._ee
    lines = []
    for _, buf in _OBJECTS:
        syms = list(elf_functions(buf))
        base = {}
        for shndx, name, value, _, bind in syms:
            if bind == 1 and shndx not in base:
                addr = engine.get_function_address(name)
                if addr:
                    base[shndx] = addr - value
        for shndx, name, value, size, _ in syms:
            if shndx in base and size:
                lines.append(f"{base[shndx] + value:x} {size:x} {name}\n")
    path = f"/tmp/perf-{os.getpid()}.map"
    with open(path, "w") as f:
        f.writelines(lines)
    return path


def _short(name: str) -> str:
    """A numba mangled name made readable enough: its module and function."""
    if name.startswith("_ZN"):
        parts, i = [], 3
        while i < len(name) and name[i].isdigit():
            j = i
            while name[j].isdigit():
                j += 1
            n = int(name[i:j])
            parts.append(name[j:j + n])
            i = j + n
        parts = [p for p in parts if not p.startswith("_3c") and p not in ("simulator", "rulesets", "panzerblitz")]
        return ".".join(parts[-2:]) if parts else name
    return name


def _user_stacks(data: str) -> list[int]:
    """The first word of each sample's user stack (its return address, for a leaf that pushed
    nothing), in sample order: read from the data file at the offsets `perf report -D` names."""
    dump = subprocess.run(["perf", "report", "-D", "-i", data], capture_output=True, text=True).stdout
    raw = open(data, "rb").read()
    tops = []
    for line in dump.splitlines():
        m = re.match(r"\d+ (0x[0-9a-f]+) \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE", line)
        if m:
            tops.append([int(m.group(1), 16), None])
            continue
        m = re.match(r"\.\.\. ustack: size (\d+), offset (0x[0-9a-f]+)", line)
        if m and tops and int(m.group(1)) >= 8:
            tops[-1][1] = int(m.group(2), 16)
    return [struct.unpack_from("<Q", raw, o + u + 8)[0] if u is not None else 0 for o, u in tops]  # after its size


def report(data: str, top: int, perf_map: str) -> None:
    """Self samples by symbol, and the callers of numba's reference counting."""
    out = subprocess.run(["perf", "script", "-G", "-F", "ip,sym", "-i", data], capture_output=True, text=True).stdout
    syms = [(r.split(None, 1) + ["?"])[1] for r in out.splitlines() if r.strip()]
    entries = []
    for line in open(perf_map):
        a, n, name = line.rstrip("\n").split(" ", 2)
        entries.append((int(a, 16), int(n, 16), name))
    entries.sort()
    starts = [e[0] for e in entries]

    def where(addr: int) -> str:
        k = bisect.bisect_right(starts, addr) - 1
        if k >= 0 and addr < entries[k][0] + entries[k][1]:
            return _short(entries[k][2])
        return "?"

    tops = _user_stacks(data)
    self_count = collections.Counter(_short(s) for s in syms)
    nrt_callers = collections.Counter()
    for s, ret in zip(syms, tops, strict=False):
        if "NRT_incref" in s or "NRT_decref" in s:
            nrt_callers[where(ret)] += 1
    total = max(len(syms), 1)
    print(f"{total} samples")
    for s, c in self_count.most_common(top):
        print(f"{100 * c / total:6.2f} %  {s}")
    nrt = sum(nrt_callers.values())
    print(f"-- NRT_incref/decref {100 * nrt / total:.1f} % of the samples, by caller (% of all samples):")
    for s, c in nrt_callers.most_common(20):
        print(f"{100 * c / total:6.2f} %  {s}")


def annotate(data: str, perf_map: str, part: str) -> None:
    """Samples by offset inside the first mapped function whose name contains `part`, and that
    function's machine code (objdump of the object it came from, written to /tmp), hottest first."""
    entries = []
    for line in open(perf_map):
        a, n, name = line.rstrip("\n").split(" ", 2)
        if part in name:
            entries.append((int(a, 16), int(n, 16), name))
    out = subprocess.run(["perf", "script", "-G", "-F", "ip", "-i", data], capture_output=True, text=True).stdout
    ips = [int(x, 16) for x in out.split()]
    best = max(entries, key=lambda e: sum(e[0] <= ip < e[0] + e[1] for ip in ips))
    start, size, name = best
    hits = collections.Counter(ip - start for ip in ips if start <= ip < start + size)
    print(f"-- {sum(hits.values())} samples in {_short(name)} ({size} bytes)")
    for _, buf in _OBJECTS:
        for _shndx, sym, value, _size, _ in elf_functions(buf):
            if sym == name:
                path = f"/tmp/perf-heur-obj-{os.getpid()}.o"
                open(path, "wb").write(buf)
                dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--disassemble={sym}", path],
                                     capture_output=True, text=True).stdout
                rows = []
                for line in dis.splitlines():
                    m = re.match(r"\s+([0-9a-f]+):\s+(.*)", line)
                    if m:
                        off = int(m.group(1), 16) - value
                        rows.append((off, m.group(2)))
                with open("/tmp/perf-heur-annotate.txt", "w") as f:
                    for off, ins in rows:
                        f.write(f"{hits.get(off, 0):5d} {off:6x} {ins}\n")
                print("annotated code: /tmp/perf-heur-annotate.txt")
                return


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("card")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--out", default=None, help="perf data file (default /tmp/perf-heur-CARD.data)")
    ap.add_argument("--annotate", default=None, help="also: samples by offset in the first function whose name has this")
    args = ap.parse_args()
    install()
    from simulator.bench import heuristic_policies
    from simulator.rulesets.panzerblitz.batch import play_games, prepare
    from simulator.situation import load_situation

    sit = load_situation(args.card)
    t = prepare(sit)
    policies = heuristic_policies(sit)
    play_games(t, [10_000], policies)  # every kernel loaded
    perf_map = write_map()
    print("map:", perf_map, len(_OBJECTS), "objects", file=sys.stderr)
    data = args.out or f"/tmp/perf-heur-{args.card}.data"
    perf = subprocess.Popen(["perf", "record", "-q", "-F", "499", "--call-graph", "dwarf,64", "-o", data,
                             "-p", str(os.getpid())], stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    seed, t0 = 1, time.time()
    while time.time() - t0 < args.seconds:
        play_games(t, list(range(seed, seed + 10)), policies)
        seed += 10
    perf.send_signal(2)
    perf.wait()
    report(data, args.top, perf_map)
    if args.annotate:
        annotate(data, perf_map, args.annotate)


if __name__ == "__main__":
    main()
