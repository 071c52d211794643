#!/usr/bin/env python3
"""Runs ../shared/oracles/ppr_oracle.py's own functions for many seeds with one graph load.

The oracle's command line reads the graph again for every seed (seconds on ego_twitter_u); this driver
imports the oracle module and calls its read_edge_file / build_transition / ppr_power, so the graph
semantics and the solver are exactly the oracle's. Output: raw little-endian float64, one row of
num_nodes exact PPR values per seed, in the order given.

usage: ppr_oracle_many.py ORACLE.py EDGES ALPHA SEEDS(comma list) OUT [--reverse] [--tol T]
  --reverse: walk in-edges instead of out-edges (the oracle run on the reversed edge list)
"""
import importlib.util
import sys

import numpy as np


def main(argv):
    oracle_path, edges, alpha, seeds, out = argv[:5]
    reverse = "--reverse" in argv[5:]
    tol = float(argv[argv.index("--tol") + 1]) if "--tol" in argv else 1e-12
    spec = importlib.util.spec_from_file_location("ppr_oracle", oracle_path)
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    meta, src, dst, w = oracle.read_edge_file(edges)
    undirected = meta.get("directed") == "false"
    n = int(meta.get("num_nodes", max(src.max(), dst.max()) + 1))
    if reverse:
        src, dst = dst, src
    P, dangling = oracle.build_transition(n, src, dst, w, undirected)
    with open(out, "wb") as fh:
        for s in (int(x) for x in seeds.split(",")):
            x, it, err = oracle.ppr_power(P, dangling, s, float(alpha), tol)
            fh.write(np.asarray(x, dtype="<f8").tobytes())
    print(n)


if __name__ == "__main__":
    main(sys.argv[1:])
