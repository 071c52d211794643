"""Command line: ``python3 -m fanout_client {pull,cat} ...`` (see ``--help``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from .channel import DEFAULT_PREFETCH_BYTES, ChannelClient, ChannelError, ChannelTimeoutError
from .safetensors import dtype_name
from .samples import SamplesFormatError, SamplesWriter, read_records, samples_files


def _values(array: np.ndarray, count: int) -> str:
    if array.ndim == 0:
        value = array.item()
        return f"{value:.6g}" if array.dtype.kind == "f" else str(value)
    flat = array.reshape(-1)
    shown = flat[:count].tolist()
    if array.dtype.kind == "f":
        text = ", ".join(f"{v:.6g}" for v in shown)
    else:
        text = ", ".join(str(v) for v in shown)
    return f"[{text}{', ...' if flat.size > count else ''}]"


def _summary(index: int, msg, values: int) -> str:
    fields = [("epoch", msg.epoch), ("batch_id", msg.batch_id), ("num_batches", msg.num_batches),
              ("endpoint", msg.endpoint)]
    known = " ".join(f"{k}={v}" for k, v in fields if v is not None)
    lines = [f"message {index}: {known or '(no epoch/batch_id metadata)'}"]
    width = max((len(name) for name in msg), default=0)
    for name, array in msg.items():
        shape = "[" + ", ".join(map(str, array.shape)) + "]"
        lines.append(f"  {name:<{width}}  {dtype_name(array.dtype):<4} {shape:<12} {_values(array, values)}")
    return "\n".join(lines)


def cmd_cat(args) -> int:
    printed = 0
    for file in samples_files(args.path):
        print(f"== {file}")
        for msg in read_records(file):
            if args.limit is not None and printed >= args.limit:
                break
            print(_summary(printed, msg, args.values))
            printed += 1
        if args.limit is not None and printed >= args.limit:
            break
    print(f"{printed} message{'s' if printed != 1 else ''}")
    return 0


def cmd_pull(args) -> int:
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    writers: dict[object, SamplesWriter] = {}
    count = 0
    client = ChannelClient(registry=args.registry, endpoints=args.endpoint or None, prefetch=args.prefetch,
                           prefetch_bytes=args.prefetch_bytes, connect_timeout=args.timeout, token=args.token,
                           tls_ca=args.tls_ca, rank=args.rank, world_size=args.world_size)
    try:
        with client:
            for msg in client:
                writer = writers.get(msg.endpoint)
                if writer is None:
                    name = f"endpoint-{msg.endpoint}.samples"
                    writer = writers[msg.endpoint] = SamplesWriter(output / name, overwrite=args.overwrite)
                writer.write(msg.blob)
                count += 1
    except BaseException:
        for writer in writers.values():
            writer.abort()
        print(f"pull stopped after {count} messages; partial files removed", file=sys.stderr)
        raise
    for writer in writers.values():
        writer.close()
    print(f"pulled {count} messages from {client.num_endpoints} endpoints into {output}")
    for key in sorted(writers, key=lambda k: (k is None, k)):
        print(f"  {writers[key].path.name}: {writers[key].count}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python3 -m fanout_client",
        description="Fanout trainer client tools: pull sampled-subgraph messages from a running job's "
                    "channel into .samples files, or print what .samples files hold.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    pull = sub.add_parser(
        "pull", help="pull every message of a running job's channel into .samples files",
        description="Connect to every endpoint of a Fanout channel, pull messages until the job's input "
                    "ends (every endpoint sent END_OF_STREAM) and write them as .samples records, one "
                    "file per endpoint (OUTPUT/endpoint-<i>.samples, written under a hidden temporary "
                    "name and renamed when complete). Prints the message count.")
    where = pull.add_mutually_exclusive_group(required=True)
    where.add_argument("--registry", metavar="DIR",
                       help="the job's channel registry directory (holds endpoint-<i>.json)")
    where.add_argument("--endpoint", metavar="HOST:PORT", action="append",
                       help="an endpoint address instead of a registry (repeat for each endpoint)")
    pull.add_argument("--output", metavar="DIR", required=True, help="directory for the .samples files")
    pull.add_argument("--prefetch", metavar="N", type=int, default=4,
                      help="messages each endpoint may send ahead (default: %(default)s)")
    pull.add_argument("--prefetch-bytes", metavar="B", type=int, default=DEFAULT_PREFETCH_BYTES,
                      help="let endpoints of small messages send more ahead, up to this many bytes each;"
                           " 0 = exactly --prefetch (default: %(default)s)")
    pull.add_argument("--timeout", metavar="S", type=float, default=30.0,
                      help="seconds to wait for the registry and every endpoint to answer (default: %(default)s)")
    pull.add_argument("--token", default="", help="access token sent in HELLO (default: the token in the registry files)")
    pull.add_argument("--tls-ca", metavar="FILE", default=None,
                      help="PEM CA certificate(s) to verify the endpoints' TLS certificates with, for a job run "
                           "with --channel-tls-cert/--channel-tls-key (registry \"tls\": true); required then")
    pull.add_argument("--rank", metavar="R", type=int, default=None,
                      help="pull only data-parallel rank R's share (batch_id %% N == R); needs --world-size")
    pull.add_argument("--world-size", metavar="N", type=int, default=None,
                      help="the job's --trainers N, with --rank (refused by the endpoints if it differs)")
    pull.add_argument("--overwrite", action="store_true", help="replace existing endpoint-<i>.samples files")
    pull.set_defaults(func=cmd_pull)

    cat = sub.add_parser(
        "cat", help="print a readable summary of each message in .samples files",
        description="Print each message of a .samples file, or of every .samples file under a directory: "
                    "epoch, batch_id and every tensor's name, dtype, shape and first values.")
    cat.add_argument("path", metavar="PATH", help="a .samples file or a directory of them")
    cat.add_argument("--limit", metavar="N", type=int, default=None, help="print at most N messages")
    cat.add_argument("--values", metavar="K", type=int, default=8,
                     help="values shown per tensor (default: %(default)s)")
    cat.set_defaults(func=cmd_cat)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ChannelError, ChannelTimeoutError, SamplesFormatError, FileNotFoundError, FileExistsError,
            ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `cat ... | head`
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
