"""The file and shared-memory readers do not load the TCP channel client (imported when first named), and the
error types live outside it."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(code):
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def test_reading_files_and_rings_loads_no_channel_client():
    out = run("import sys, fanout_client\n"
              "from fanout_client import read_samples, ShmClient, SamplingError, ChannelError\n"
              "import fanout_client.dataset\n"
              "print(sorted(m for m in sys.modules if m.startswith('fanout_client.channel')))")
    assert out.strip() == "[]"


def test_the_channel_client_is_there_when_named():
    out = run("import fanout_client\n"
              "from fanout_client import ChannelClient, Epoch, PROTOCOL_VERSION, SamplingError\n"
              "from fanout_client.channel import SamplingError as ChannelSamplingError\n"
              "print(ChannelClient.__module__, PROTOCOL_VERSION, SamplingError is ChannelSamplingError)")
    assert out.split() == ["fanout_client.channel.client", "3", "True"]
