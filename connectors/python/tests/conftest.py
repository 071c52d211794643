import sys
from pathlib import Path

# Make `import fanout_client` work without installing (the README's PYTHONPATH route), and the test
# helpers here (channel_server, shm_writer) importable from tests/pyg/ too.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))


import pytest  # noqa: E402

from channel_server import EndpointServer  # noqa: E402


@pytest.fixture
def servers():
    """Starts test channel endpoints (``servers(messages, **knobs)``) and closes them after the test."""
    started = []

    def start(*args, **kwargs):
        server = EndpointServer(*args, **kwargs).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.close()
