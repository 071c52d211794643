"""Smoke test of an installed fanout-client wheel, run by deploy/bin/fanout-test in a fresh virtual environment:

    cd /tmp/somewhere && VENV/bin/python -I wheel_smoke.py --source connectors/python/fanout_client [--pyg]

``-I`` keeps the checkout (and this script's directory) off ``sys.path``, so everything comes from the wheel.
Imports every module the source tree has (a module or subpackage the packaging leaves out fails here, as
``fanout_client.channel`` once did), checks each was loaded from the environment, runs the console script,
writes a k-hop message to a ``.samples`` file and reads it back, and with ``--pyg`` converts it with ``to_pyg``
(torch and PyG must then be importable). Exits non-zero, naming what is wrong, on any failure.
"""

import argparse
import importlib
import importlib.metadata
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path


def fail(problem):
    """Stop with a non-zero exit status and one line saying what is wrong."""
    raise SystemExit(f"wheel smoke test: {problem}")


def source_modules(source: Path) -> list:
    """Dotted names of every module under the source package directory (``fanout_client``)."""
    names = []
    for path in sorted(source.rglob("*.py")):
        parts = path.relative_to(source.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def check_imports(source: Path) -> int:
    """Import every module of the source tree and check it came from this environment, not the checkout."""
    prefix = Path(sys.prefix).resolve()
    names = source_modules(source)
    if "fanout_client.channel" not in names:
        fail(f"{source} does not look like the fanout_client source (no channel subpackage)")
    for name in names:
        try:
            module = importlib.import_module(name)
        except ImportError as e:
            fail(f"{name} does not import from the installed wheel: {e}")
        where = Path(module.__file__).resolve()
        if prefix not in where.parents:
            fail(f"{name} was imported from {where}, not from the environment {prefix}")
    return len(names)


def khop_message(batch_id):
    """A small k-hop message in the job's layout (GLT keys, edges grouped by hop), as encoded bytes."""
    import numpy as np
    from fanout_client import encode

    i64 = np.int64
    return encode({
        "ids": np.array([10, 11, 20, 21, 30], dtype=i64), "batch": np.array([10, 11], dtype=i64),
        "rows": np.array([0, 0, 1, 2], dtype=i64), "cols": np.array([2, 3, 3, 4], dtype=i64),
        "num_sampled_nodes": np.array([2, 2, 1], dtype=i64), "num_sampled_edges": np.array([3, 1], dtype=i64),
        "nfeats": np.arange(10, dtype=np.float32).reshape(5, 2), "nlabels": np.array([0, 1, -1, 1, 0], dtype=i64),
        "#IS_HETERO": np.array([0], dtype=i64), "#META.epoch": np.array([0], dtype=i64),
        "#META.batch_id": np.array([batch_id], dtype=i64), "#META.num_batches": np.array([2], dtype=i64),
        "#META.input_id": np.array([0, 1], dtype=i64),
    })


def check_files(workdir: Path):
    """Write the message with SamplesWriter, read it back (whole and from a file cut short); return it."""
    from fanout_client import SamplesTruncatedWarning, SamplesWriter, read_samples

    blobs = [khop_message(0), khop_message(1)]
    path = workdir / "smoke.samples"
    with SamplesWriter(path) as writer:
        for blob in blobs:
            writer.write(blob)
    msg, second = read_samples(path)
    if [bytes(msg.blob), bytes(second.blob)] != blobs or msg["ids"].tolist() != [10, 11, 20, 21, 30] \
            or [msg.batch_id, second.batch_id] != [0, 1]:
        fail("read_samples did not give back the messages written")
    path.write_bytes(path.read_bytes()[:-3])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if len(list(read_samples(path, strict=False))) != 1:
            fail("read_samples(strict=False) did not yield the whole message before the cut one")
    if [w.category for w in caught] != [SamplesTruncatedWarning]:
        fail(f"expected one SamplesTruncatedWarning for the cut file, got {[str(w.message) for w in caught]}")
    return msg


def check_console_script():
    """The ``fanout-client`` command the wheel installs runs."""
    script = Path(sys.executable).parent / "fanout-client"
    if not script.exists():
        fail(f"the wheel installed no {script}")
    done = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    if done.returncode != 0 or "pull" not in done.stdout:
        fail(f"{script} --help exited {done.returncode}: {done.stderr[-2000:]}")


def check_pyg(msg):
    """to_pyg gives a PyG Data with the NeighborLoader fields and dtypes."""
    try:
        import torch
        from torch_geometric.data import Data
    except ImportError as e:
        fail(f"--pyg needs torch and torch_geometric here: {e}")
    from fanout_client import to_pyg

    data = to_pyg(msg)
    if not isinstance(data, Data):
        fail(f"to_pyg gave {type(data).__name__}, not torch_geometric.data.Data")
    if data.x.dtype != torch.float32 or data.edge_index.dtype != torch.int64 or data.y.dtype != torch.int64:
        fail(f"to_pyg dtypes: x {data.x.dtype}, edge_index {data.edge_index.dtype}, y {data.y.dtype}")
    if data.edge_index.tolist() != [[2, 3, 3, 4], [0, 0, 1, 2]] or data.batch_size != 2:
        fail(f"to_pyg edge_index {data.edge_index.tolist()}, batch_size {data.batch_size}")
    if data.num_sampled_nodes != [2, 2, 1] or data.num_sampled_edges != [3, 1]:
        fail(f"to_pyg per-hop counts {data.num_sampled_nodes}, {data.num_sampled_edges}")
    return f"torch {torch.__version__}"


def main():
    """Run every check; print one line when all passed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, required=True, help="the checkout's fanout_client directory")
    parser.add_argument("--pyg", action="store_true", help="also check to_pyg (torch and PyG must be importable)")
    args = parser.parse_args()
    source = args.source.resolve()
    cwd = Path.cwd().resolve()
    on_path = [p for p in sys.path if p and source.parent in (Path(p).resolve(), *Path(p).resolve().parents)]
    if source.parent in (cwd, *cwd.parents) or on_path:
        fail(f"run it outside the checkout (cwd {cwd}, sys.path {on_path}), with python -I")
    count = check_imports(source)
    version = importlib.metadata.version("fanout-client")
    import fanout_client
    if fanout_client.__version__ != version:
        fail(f"fanout_client.__version__ {fanout_client.__version__} but the installed distribution is {version}")
    check_console_script()
    with tempfile.TemporaryDirectory() as tmp:
        msg = check_files(Path(tmp))
    extra = f", to_pyg with {check_pyg(msg)}" if args.pyg else ""
    print(f"wheel smoke test: fanout-client {version} in {sys.prefix}: {count} modules import, files read{extra}")


if __name__ == "__main__":
    main()
