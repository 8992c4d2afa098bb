#!/usr/bin/python3
"""Regenerates testdata/ops/: the Unpack, OneHot and Unsqueeze conformance cases of
../shared/testdata/onnx-node as .npy inputs/outputs plus a case.json with the node's
attributes and the model's opset. A tiny hand-written protobuf reader: no onnx package."""
import json
import os
import struct
import sys

import numpy as np

SRC = os.path.join(os.path.dirname(__file__), "../../../shared/testdata/onnx-node")
DST = os.path.join(os.path.dirname(__file__), "../../testdata/ops")
PREFIXES = ("test_unpack_", "test_onehot_", "test_unsqueeze_")

# ONNX TensorProto.DataType -> numpy dtype
NP = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32, 7: np.int64,
      9: np.bool_, 10: np.float16, 11: np.float64, 12: np.uint32, 13: np.uint64}


def varint(buf, pos):
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result, pos


def fields(buf):
    """Yields (field number, wire type, value) with value an int or bytes."""
    pos = 0
    while pos < len(buf):
        key, pos = varint(buf, pos)
        num, wire = key >> 3, key & 7
        if wire == 0:
            val, pos = varint(buf, pos)
        elif wire == 1:
            val = buf[pos:pos + 8]
            pos += 8
        elif wire == 2:
            n, pos = varint(buf, pos)
            val = buf[pos:pos + n]
            pos += n
        elif wire == 5:
            val = buf[pos:pos + 4]
            pos += 4
        else:
            raise ValueError("wire type %d" % wire)
        yield num, wire, val


def signed64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def packed_varints(val, wire):
    if wire == 0:
        return [val]
    out, pos = [], 0
    while pos < len(val):
        v, pos = varint(val, pos)
        out.append(v)
    return out


def tensor(buf):
    dims, dtype, raw, ints, floats, doubles, strings = [], 0, None, [], [], [], []
    for num, wire, val in fields(buf):
        if num == 1:
            dims += [signed64(v) for v in packed_varints(val, wire)]
        elif num == 2:
            dtype = val
        elif num == 4:
            floats += list(struct.unpack("<%df" % (len(val) // 4), val)) if wire == 2 else [struct.unpack("<f", val)[0]]
        elif num in (5, 7, 11):
            ints += [signed64(v) for v in packed_varints(val, wire)]
        elif num == 6:
            strings.append(bytes(val).decode("utf-8"))
        elif num == 9:
            raw = bytes(val)
        elif num == 10:
            doubles += list(struct.unpack("<%dd" % (len(val) // 8), val)) if wire == 2 else [struct.unpack("<d", val)[0]]
    if dtype == 8:
        return np.array(strings, dtype=np.str_).reshape(dims)
    nd = NP[dtype]
    if raw is not None:
        arr = np.frombuffer(raw, dtype=np.dtype(nd).newbyteorder("<"))
    elif dtype in (1,):
        arr = np.array(floats, dtype=nd)
    elif dtype == 11:
        arr = np.array(doubles, dtype=nd)
    elif dtype == 10:
        arr = np.array(ints, dtype=np.uint16).view(np.float16)
    else:
        arr = np.array(ints, dtype=np.int64).astype(nd)
    return arr.reshape(dims)


def attribute(buf):
    name, value = None, None
    ints = []
    for num, wire, val in fields(buf):
        if num == 1:
            name = bytes(val).decode()
        elif num == 3:
            value = signed64(val)
        elif num == 8:
            ints += [signed64(v) for v in packed_varints(val, wire)]
    return name, (ints if value is None else value)


def model(buf):
    node, opset = None, None
    for num, _, val in fields(buf):
        if num == 8:  # opset_import
            domain, version = "", 0
            for n2, _, v2 in fields(val):
                if n2 == 1:
                    domain = bytes(v2).decode()
                elif n2 == 2:
                    version = v2
            if domain in ("", "ai.onnx"):
                opset = version
        elif num == 7:  # graph
            for n2, _, v2 in fields(val):
                if n2 == 1:  # node
                    node = {"op_type": None, "attributes": {}}
                    for n3, _, v3 in fields(v2):
                        if n3 == 4:
                            node["op_type"] = bytes(v3).decode()
                        elif n3 == 5:
                            k, v = attribute(v3)
                            node["attributes"][k] = v
    node["opset"] = opset
    return node


def main():
    for case in sorted(os.listdir(SRC)):
        if not case.startswith(PREFIXES):
            continue
        src = os.path.join(SRC, case)
        dst = os.path.join(DST, case)
        os.makedirs(dst, exist_ok=True)
        with open(os.path.join(src, "model.onnx"), "rb") as f:
            info = model(f.read())
        data = os.path.join(src, "test_data_set_0")
        for name in sorted(os.listdir(data)):
            with open(os.path.join(data, name), "rb") as f:
                arr = tensor(f.read())
            np.save(os.path.join(dst, name[:-3] + ".npy"), arr)
        with open(os.path.join(dst, "case.json"), "w") as f:
            json.dump(info, f, indent=1, sort_keys=True)
            f.write("\n")
        print(case, info, file=sys.stderr)


main()
