"""Execute notebooks/views.ipynb and save it with its outputs and widget state to docs/notebooks/.

The notebooks in notebooks/ are stored stripped (notebooks/README.md); this executed copy
shows the widgets working: the widget models (their data and script) are saved in the
notebook's metadata, so JupyterLab, VS Code or nbviewer-like renderers with widget support
show the views without a kernel. Run: python tools/execute_views_notebook.py
"""

from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "notebooks" / "views.ipynb"
TARGET = ROOT / "docs" / "notebooks" / "views_executed.ipynb"


def main() -> None:
    nb = nbformat.read(SOURCE, as_version=4)
    NotebookClient(nb, kernel_name="python3", timeout=600, store_widget_state=True,
                   resources={"metadata": {"path": str(SOURCE.parent)}}).execute()
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, TARGET)
    print("wrote", TARGET)


if __name__ == "__main__":
    main()
