#!/usr/bin/env python3
"""The Perfetto export, decoded here with a small protobuf reader of its own (no protobuf
library): one slice per region visit and per program (counted against otf2-print), every slice begun is ended
on its track, one flow per message from a send to its receive (as many as the Chrome trace
export pairs), each wait-state instance as a slice, and the process and thread tracks named."""
import collections
import json
import os
import subprocess
import sys

from export_check import analyzed_reference, check, otf2_counts, run_on_references


def varint(data, at):
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def fields(data):
    """(field number, wire type, value) of one message: ints for varint and fixed64, bytes for
    length-delimited fields."""
    at = 0
    while at < len(data):
        key, at = varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = varint(data, at)
        elif wire == 1:
            value, at = int.from_bytes(data[at:at + 8], "little"), at + 8
        elif wire == 2:
            length, at = varint(data, at)
            value, at = data[at:at + length], at + length
        else:
            raise ValueError(f"wire type {wire} at byte {at}")
        yield number, wire, value


def decode(path):
    with open(path, "rb") as f:
        data = f.read()
    tracks, events = {}, []
    for number, _, packet in fields(data):
        assert number == 1, "a Trace holds only packets (field 1)"
        p = {n: v for n, _, v in fields(packet)}
        if 60 in p:
            d = {n: v for n, _, v in fields(p[60])}
            name = d.get(2, b"").decode()
            for nested in (3, 4):
                if nested in d:
                    inner = {n: v for n, _, v in fields(d[nested])}
                    name = inner.get(6 if nested == 3 else 5, b"").decode()
            tracks[d[1]] = (name, d.get(5))
        if 11 in p:
            e = collections.defaultdict(list)
            for n, _, v in fields(p[11]):
                e[n].append(v)
            events.append((p[8], p.get(10), e))
    return tracks, events


def check_trace(args, name):
    trace, work, instances = analyzed_reference(args, name)
    out = os.path.join(work, "trace.pftrace")
    subprocess.run([args.export, "--perfetto", out, "--instances", instances, "--quiet", trace],
                   check=True)
    json_out = os.path.join(work, "trace.json")
    subprocess.run([args.export, "--chrome-trace", json_out, "--instances", instances, "--quiet",
                    trace], check=True)
    tracks, events = decode(out)
    expected = otf2_counts(args.otf2_print, os.path.join(trace, "traces.otf2"))

    def category(e):
        return e[22][0].decode() if 22 in e else ""

    begins = [e for _, _, e in events if e[9] == [1]]
    ends = [e for _, _, e in events if e[9] == [2]]
    visits = [e for e in begins if category(e) != "wait state"]
    waits = [e for e in begins if category(e) == "wait state"]
    check(len(visits) == expected["ENTER"] + expected["PROGRAM_BEGIN"],
          f"{name}: {len(visits)} slices, otf2-print has {expected['ENTER']} enters and "
          f"{expected['PROGRAM_BEGIN']} program begins")
    check(len(begins) == len(ends), f"{name}: {len(begins)} slices begun, {len(ends)} ended")
    # Every slice ends on its own track, properly nested, in time order per track.
    stacks = collections.defaultdict(list)
    for time, _, e in sorted(events, key=lambda t: t[0]):
        track = e[11][0]
        check(track in tracks, f"{name}: event on undescribed track {track}")
        if e[9] == [1]:
            stacks[track].append(time)
        elif e[9] == [2]:
            check(bool(stacks[track]), f"{name}: slice end without begin on track {track}")
            if stacks[track]:
                check(stacks[track].pop() <= time, f"{name}: slice ends before it begins")
    check(all(not s for s in stacks.values()), f"{name}: slices left open")
    with open(instances) as f:
        instance_count = sum(1 for line in f if line.strip() and not line.startswith("#"))
    check(len(waits) == instance_count,
          f"{name}: {len(waits)} wait-state slices, instances.txt has {instance_count}")
    # Flows: as many as the Chrome trace pairs, each from a send to a receive no earlier.
    starts = {e[47][0]: time for time, _, e in events if 47 in e}
    finishes = {e[48][0]: time for time, _, e in events if 48 in e}
    with open(json_out) as f:
        chrome = json.load(f)["traceEvents"]
    chrome_flows = {e["id"] for e in chrome if e["ph"] == "s"} & {
        e["id"] for e in chrome if e["ph"] == "f"}
    paired = set(starts) & set(finishes)
    check(len(paired) == len(chrome_flows),
          f"{name}: {len(paired)} flows, the Chrome trace has {len(chrome_flows)}")
    sends = expected["MPI_SEND"] + expected["MPI_ISEND"]
    check(len(starts) == sends, f"{name}: {len(starts)} flow starts, otf2-print has {sends} sends")
    names = {n for n, _ in tracks.values()}
    check({"rank 0", "rank 1", "rank 2", "rank 3", "wait states"} <= names,
          f"{name}: track names {sorted(names)[:8]}")


if __name__ == "__main__":
    sys.exit(run_on_references(check_trace, ("late_sender", "wait_nxn", "nb_late_sender",
                                             "late_receiver"),
                               "perfetto export checked on 4 reference traces"))
