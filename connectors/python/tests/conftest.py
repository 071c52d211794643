import sys
from pathlib import Path

# Make `import fanout_client` work without installing (the README's PYTHONPATH route).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
