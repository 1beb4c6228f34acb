"""rlref.eval: one formula at one input, in this process, through rlref's shared library
(build/lib/librlref_oracles.so; rlref_eval_text of oracles/core/eval_api.h)."""

import ctypes
import json
import math
import os

from rlref_check import RlrefError

_HERE = os.path.dirname(os.path.abspath(__file__))
_LIB = None


class UnknownFormula(RlrefError, LookupError):
    """A formula id, variant or input the registry does not have, or a value it cannot read."""


class Rejected(RlrefError, ValueError):
    """The formula refuses the input: status is the library's error (EDOM, ENAN, EINVAL...)."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


class Value:
    """One certified output element: value (the decimal string of its certified digits),
    digits (how many are certified; 0 for an exact zero or a non-finite value), double (the
    binary64 implementation's result, None when it failed) and sens (the tolerance rule's
    sensitivity, None unless asked for)."""

    __slots__ = ("value", "digits", "double", "sens")

    def __init__(self, d):
        self.value, self.digits = d["value"], d["digits"]
        self.sens = float(d["sens"]) if "sens" in d else None
        h = d.get("double_hex")
        self.double = None if h is None else (float(h) if h in ("nan", "inf", "-inf")
                                               else float.fromhex(h))

    def __float__(self):
        return float(self.value)

    def __repr__(self):
        return "Value(%s, digits=%d, double=%r)" % (self.value, self.digits, self.double)


def library_path():
    """The shared library: $RLREF_ORACLES_LIB, else the copy installed with the package, else
    build/lib/ of the rlref tree the package sits in."""
    for p in (os.environ.get("RLREF_ORACLES_LIB"), os.path.join(_HERE, "librlref_oracles.so"),
              os.path.join(_HERE, "..", "..", "..", "build", "lib", "librlref_oracles.so")):
        if p and os.path.isfile(p):
            return os.path.normpath(p)
    raise RlrefError("librlref_oracles.so not found: build rlref (make) or set "
                     "RLREF_ORACLES_LIB")


def _lib():
    global _LIB
    if _LIB is None:
        lib = ctypes.CDLL(library_path())
        lib.rlref_eval_text.restype = ctypes.c_void_p
        lib.rlref_eval_text.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_long,
                                        ctypes.c_int, ctypes.c_int,
                                        ctypes.POINTER(ctypes.c_char_p),
                                        ctypes.POINTER(ctypes.c_int)]
        lib.rlref_eval_text_free.argtypes = [ctypes.c_void_p]
        lib.rlref_registry_text.restype = ctypes.c_void_p
        lib.rlref_registry_text.argtypes = []
        _LIB = lib
    return _LIB


_REGISTRY = None


def registry():
    """The registry's formulas, as the shared library declares them: a dict of id to
    {"id", "what", "source", "golden", "variants"}, each variant {"name", "description",
    "usedBy", "inputs", "outputs"} and each input {"name", "kind" (real, real[], int, int[]),
    "doc"} with its "domain" ("(0,inf)", "[0,1] sum1"), "sameLenAs" and "defaultsToLenOf"
    where declared."""
    global _REGISTRY
    if _REGISTRY is None:
        lib = _lib()
        p = lib.rlref_registry_text()
        if not p:
            raise MemoryError("rlref_registry_text")
        try:
            _REGISTRY = {f["id"]: f for f in json.loads(ctypes.string_at(p).decode())}
        finally:
            lib.rlref_eval_text_free(p)
    return _REGISTRY


def _word(name, x):
    """name=value as the registry reads it: floats in C99 hex (exact), ints in decimal,
    sequences and arrays (tolist()) comma-separated."""
    if hasattr(x, "tolist") and not isinstance(x, (list, tuple)):
        x = x.tolist()
    if isinstance(x, (list, tuple)):
        return "%s=%s" % (name, ",".join(_scalar(name, e) for e in x))
    return "%s=%s" % (name, _scalar(name, x))


def _scalar(name, x):
    if isinstance(x, bool):
        raise TypeError("input %s: a boolean is not a value" % name)
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return x.hex()
    raise TypeError("input %s: %r is not a number or a list of numbers" % (name, x))


_KIND_WORDS = {"real": "a number", "int": "an integer", "real[]": "a list of numbers",
               "int[]": "a list of integers"}


def _shape_of(x):
    """What x is, in words, for messages."""
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return "an array of shape %s and dtype %s" % (tuple(x.shape), x.dtype)
    if isinstance(x, (list, tuple)):
        return "a list of %d" % len(x)
    return "%s %r" % (type(x).__name__, x)


def _check_inputs(formula, variant, inputs):
    """Refuse an input of the wrong shape or type before the registry reads it: TypeError
    naming the input, what it is and what the formula declares (a number, an integer, a list
    of numbers, a list of integers)."""
    f = registry().get(formula)
    if f is None:
        return                      # the library names the unknown formula
    vs = [v for v in f["variants"] if variant is None or v["name"] == variant]
    if not vs:
        return
    kinds = {i["name"]: i["kind"] for i in vs[0]["inputs"]}
    for name, x in inputs.items():
        kind = kinds.get(name)
        if kind is None:
            continue                # a parameter, or unknown: the library says which
        if hasattr(x, "tolist") and not isinstance(x, (list, tuple)):
            if getattr(x, "ndim", 0) > 1:
                raise TypeError("input %s of %s is %s: %s is expected (one dimension)"
                                % (name, formula, _shape_of(x), _KIND_WORDS[kind]))
            x = x.tolist()
        is_list = isinstance(x, (list, tuple))
        if kind.endswith("[]") != is_list:
            raise TypeError("input %s of %s is %s: %s is expected%s"
                            % (name, formula, _shape_of(x), _KIND_WORDS[kind],
                               " ([x] for one element)" if kind.endswith("[]") else ""))
        for e in (x if is_list else [x]):
            ok = isinstance(e, (int, float)) and not isinstance(e, bool)
            if kind.startswith("int"):
                ok = isinstance(e, int) and not isinstance(e, bool)
            if not ok:
                raise TypeError("input %s of %s holds %r%s: %s is expected"
                                % (name, formula, e, " (a boolean)" if isinstance(e, bool)
                                   else "", _KIND_WORDS[kind]))


def evaluate(formula, variant=None, prec=256, want_sens=False, **inputs):
    """The formula's outputs at inputs (keyword arguments named as `rlref list` and the goldens
    name them) under variant (None: the formula's default), certified at prec bits: a dict of
    output name to Value, or to a list of Values for an array output.  UnknownFormula for an
    id, variant or input the registry does not have; TypeError for an input of the wrong
    shape or type (a list for a number, a number for a list, a float for an integer);
    Rejected when the formula refuses the input.  want_sens also forms each value's
    sensitivity (Value.sens), the tolerance rule's sens (slower: the formula's own derivative,
    or central differences)."""
    _check_inputs(formula, variant, inputs)
    words = [_word(k, v).encode() for k, v in inputs.items()]
    arr = (ctypes.c_char_p * (len(words) + 1))(*words, None)
    status = ctypes.c_int(0)
    lib = _lib()
    p = lib.rlref_eval_text(formula.encode(), None if variant is None else variant.encode(),
                            int(prec), 1 if want_sens else 0, len(words), arr,
                            ctypes.byref(status))
    if not p:
        raise MemoryError("rlref_eval_text")
    try:
        data = json.loads(ctypes.string_at(p).decode())
    finally:
        lib.rlref_eval_text_free(p)
    if status.value == 1:
        raise Rejected(data["error"], data["error"].split(": ")[1].split()[0]
                       if ": " in data["error"] else None)
    if status.value == 2:
        raise UnknownFormula(data["error"])
    out = {}
    for name, v in data["outputs"].items():
        out[name] = [Value(e) for e in v] if isinstance(v, list) else Value(v)
    return out
