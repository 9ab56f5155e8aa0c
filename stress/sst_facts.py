#!/usr/bin/env python3
"""What a closed RocksDB database holds, as stress/check_filters.py and
stress/file_origins.py read it: every column family's filter policy,
compaction style and num_levels from the latest OPTIONS file; the live SST
files per level with their key ranges (`ldb --hex manifest_dump`); each
file's table properties (`sst_dump --show_properties`); and each filter's
kind from the marker byte at the end of its filter block, read from the file
itself via its footer and metaindex block.
"""
import glob
import os
import re
import struct
import subprocess
import sys

BLOCK_TRAILER = 5
MAGIC = 0x88E241B785F4CFF7  # kBlockBasedTableMagicNumber


def die(msg):
    name = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    print(name + ": " + msg, file=sys.stderr)
    sys.exit(2)


def latest_options_file(db):
    files = glob.glob(os.path.join(db, "OPTIONS-*"))
    files = [f for f in files if re.fullmatch(r"OPTIONS-\d+", os.path.basename(f))]
    if not files:
        return None
    return max(files, key=lambda f: int(f.rsplit("-", 1)[1]))


def filter_policies(options_file, num_levels=None):
    """({column family: filter_policy value}, {column family: compaction
    style}) from an OPTIONS file; fills num_levels ({column family:
    num_levels}) when given."""
    policies, styles, cf, section = {}, {}, None, None
    if num_levels is None:
        num_levels = {}
    with open(options_file, errors="replace") as f:
        for line in f:
            line = line.strip()
            m = re.fullmatch(r'\[(TableOptions/BlockBasedTable|CFOptions) "(.*)"\]', line)
            if m:
                section, cf = m.group(1), m.group(2)
                continue
            if line.startswith("["):
                cf = None
            elif cf is None:
                continue
            elif section == "CFOptions" and line.startswith("compaction_style="):
                styles[cf] = line[len("compaction_style="):]
            elif section == "CFOptions" and line.startswith("num_levels="):
                try:
                    num_levels[cf] = int(line[len("num_levels="):])
                except ValueError:
                    pass
            elif section != "CFOptions" and line.startswith("filter_policy="):
                policies[cf] = line[len("filter_policy="):]
    return policies, styles


def policy_options(value):
    """'{id=monkey;bits_per_key=7;...}' -> {'id': 'monkey', ...}."""
    value = value.strip()
    if value.startswith("{") and value.endswith("}"):
        value = value[1:-1]
    out = {}
    for part in value.split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = v.strip()
        elif part.strip():
            out["id"] = part.strip()
    return out


def run(cmd, check=True):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        die("cannot run %s: %s" % (cmd[0], e))
    if check and p.returncode != 0:
        die("%s failed (exit %d): %s" % (" ".join(cmd), p.returncode,
                                          p.stderr.decode(errors="replace")[-2000:]))
    return p.stdout.decode(errors="replace")


# A live file in `ldb --hex manifest_dump`: number:size[...]['smallest user
# key' seq:.., type:.. .. 'largest user key' seq:.., type:..].
RANGE = re.compile(r"\s*(\d+):\d+\[.*?\]\['([0-9A-Fa-f]*)' seq:\d+, type:\d+ \.\. "
                   r"'([0-9A-Fa-f]*)' seq:\d+, type:\d+\]")


def key_ranges(ldb, db):
    """{file number: (smallest, largest)} user keys, as bytes."""
    with open(os.path.join(db, "CURRENT")) as f:
        manifest = os.path.join(db, f.read().strip())
    out = run([ldb, "--db=" + db, "--hex", "manifest_dump", "--path=" + manifest])
    ranges = {}
    for line in out.splitlines():
        m = RANGE.match(line)
        if m:
            ranges[int(m.group(1))] = (bytes.fromhex(m.group(2)),
                                       bytes.fromhex(m.group(3)))
    return ranges


def live_files(ldb, db):
    """{column family: {level: [file number]}} from the MANIFEST that
    CURRENT names (a run killed while making a new MANIFEST leaves two)."""
    with open(os.path.join(db, "CURRENT")) as f:
        manifest = os.path.join(db, f.read().strip())
    out = run([ldb, "--db=" + db, "--hex", "manifest_dump", "--path=" + manifest])
    cfs, cf, level, seen = {}, None, None, {}
    for line in out.splitlines():
        m = re.match(r'-+ Column family "(.*)"\s+\(ID \d+\) -+$', line)
        if m:
            cf, level = m.group(1), None
            cfs.setdefault(cf, {})
            continue
        m = re.match(r"--- level (\d+) ---", line)
        if m and cf is not None:
            level = int(m.group(1))
            continue
        m = re.match(r"\s*(\d+):(\d+)\[", line)
        if m and cf is not None and level is not None:
            number = int(m.group(1))
            if number in seen:
                # A parse that lists one file twice would compare a level
                # with itself; RocksDB's version builder refuses that tree.
                die("ldb manifest_dump of %s lists file %d twice (column "
                    "family '%s' L%d and '%s' L%d)"
                    % (db, number, seen[number][0], seen[number][1], cf, level))
            seen[number] = (cf, level)
            cfs[cf].setdefault(level, []).append(number)
    if not cfs:
        die("ldb manifest_dump of %s lists no column family" % db)
    return cfs


PROPERTY_LINES = (("# entries: ", "entries"),
                  ("filter block size: ", "filter_size"),
                  ("# entries for filter: ", "num_filter_entries"),
                  ("filter policy name: ", "filter_policy"))


def table_properties(sst_dump, db):
    """{file name: properties} of every SST in db, from one sst_dump run."""
    # sst_dump exits non-zero when any file in db is unreadable, e.g. one a
    # killed run was writing: what it printed for the others is used.
    out = run([sst_dump, "--file=" + db, "--show_properties"], check=False)
    tables, props = {}, None
    for line in out.splitlines():
        m = re.match(r"Process (.*\.sst)$", line.strip())
        if m:
            props = tables.setdefault(os.path.basename(m.group(1)), {})
            continue
        line = line.strip()
        if props is None:
            continue
        for key, name in PROPERTY_LINES:
            if line.startswith(key) and name not in props:
                v = line[len(key):]
                props[name] = v if name == "filter_policy" else int(v)
    # A file sst_dump cannot read (one a killed run was writing, not live)
    # has no properties here; live files are looked up by the caller.
    for name in list(tables):
        props = tables[name]
        if any(key not in props for _, key in PROPERTY_LINES):
            del tables[name]
        elif props["filter_policy"] == "N/A":
            props["filter_policy"] = ""
    return tables


def varint(buf, pos):
    shift = result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def filter_kind(path):
    """(kind, format_version) of a block-based SST's full filter: kind is
    bloom, ribbon, legacy_bloom, empty, partitioned, or none (no filter
    block)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 53:
        raise ValueError("too short for an SST")
    footer = data[-53:]
    magic, = struct.unpack("<Q", footer[-8:])
    if magic != MAGIC:
        raise ValueError("not a block-based table (magic %x)" % magic)
    version, = struct.unpack("<I", footer[-12:-8])
    if version >= 6:
        if footer[1:5] != b"\x3e\x00\x7a\x00":
            raise ValueError("bad extended magic")
        size, = struct.unpack("<I", footer[13:17])
        end = len(data) - 53 - BLOCK_TRAILER
        meta_off, meta_size = end - size, size
    else:
        meta_off, pos = varint(footer, 1)
        meta_size, pos = varint(footer, pos)
    block = data[meta_off:meta_off + meta_size]
    num_restarts, = struct.unpack("<I", block[-4:])
    num_restarts &= 0x7FFFFFFF
    limit = len(block) - 4 - 4 * num_restarts
    pos, key = 0, b""
    while pos < limit:
        shared, pos = varint(block, pos)
        non_shared, pos = varint(block, pos)
        value_len, pos = varint(block, pos)
        key = key[:shared] + block[pos:pos + non_shared]
        pos += non_shared
        value = block[pos:pos + value_len]
        pos += value_len
        if key.startswith(b"partitionedfilter."):
            return "partitioned", version
        if key.startswith(b"fullfilter."):
            off, p = varint(value, 0)
            length, p = varint(value, p)
            filt = data[off:off + length]
            if len(filt) <= 5:
                return "empty", version
            marker = struct.unpack("b", filt[-5:-4])[0]
            return {-1: "bloom", -2: "ribbon"}.get(marker, "legacy_bloom"), version
    return "none", version
