import sys
from pathlib import Path

# Make `import fanout_client` work without installing (the README's PYTHONPATH route), and the test
# helpers here (channel_server, shm_writer) importable from tests/pyg/ too.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
