"""Executed notebooks as HTML that reads offline: nothing is fetched from another host.

nbconvert's lab template loads require.js, MathJax and Mermaid from a CDN, so offline a
derivation shows its raw ``$\\displaystyle ...$`` source. The template here drops require.js,
Mermaid and widgets (no notebook uses them) and typesets math with MathJax 3's single-file SVG
component (``tex-svg-full.js``, every TeX extension built in) from the ``django-static-mathjax``
package: MathJax 3.2 as plain files, without Django. It is copied once to reports/assets/mathjax/
and linked by a relative path, so reports/ can be zipped and opened anywhere. SVG output needs no
web fonts, which browsers may refuse to load from file:// URLs. A progress bar's redraws (``\\r``)
are collapsed to its last state, as a notebook shows it, instead of one line per redraw.
"""

import importlib.resources
import os
import shutil
from pathlib import Path

from jinja2 import DictLoader

from pipeline.files import temporary_beside, write_text_atomic

ASSETS = "assets"
MATHJAX_FILES = ("es5/tex-svg-full.js", "LICENSE")

# Extends nbconvert's lab template; MathJax reads the same delimiters nbconvert's MathJax 2
# configuration did, and numbers AMS environments.
_TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{% block html_head_js_requirejs %}{% endblock html_head_js_requirejs %}
{% block jupyter_widgets %}{% endblock jupyter_widgets %}
{% block html_head_js_mermaidjs %}{% endblock html_head_js_mermaidjs %}
{% block html_head_js_mathjax %}
<script>
window.MathJax = {
  tex: {
    inlineMath: [['$', '$'], ['\\(', '\\)']],
    displayMath: [['$$', '$$'], ['\\[', '\\]']],
    processEscapes: true,
    processEnvironments: true,
    tags: 'ams'
  },
  svg: {fontCache: 'global'}
};
</script>
<script defer src="{{ resources.mathjax_url }}"></script>
<style>
/* An equation's SVG reaches below its line box, which gave outputs (overflow: auto) a vertical
   scrollbar: measure it whole as an inline block, and hide the pixel or two of glyph overhang
   left; a wide equation still scrolls sideways. */
mjx-container[jax="SVG"]:not([display="true"]) { display: inline-block; }
.jp-RenderedLatex { overflow-y: hidden; }
</style>
{% endblock html_head_js_mathjax %}
"""


def mathjax_dir(reports: Path) -> Path:
    return Path(reports) / ASSETS / "mathjax"


def install_assets(reports: Path) -> Path:
    """Copy MathJax into reports/assets/mathjax/ unless already there; return the script."""
    source = Path(str(importlib.resources.files("mathjax"))) / "static" / "mathjax"
    target = mathjax_dir(reports)
    for name in MATHJAX_FILES:
        src, dst = source / name, target / Path(name).name
        if not dst.exists() or dst.stat().st_size != src.stat().st_size:
            tmp = temporary_beside(dst)
            shutil.copyfile(src, tmp)
            os.replace(tmp, dst)
    return target / Path(MATHJAX_FILES[0]).name


def export_html(executed: Path, html: Path, reports: Path, url_from: Path | None = None) -> None:
    """Write the executed notebook ``executed`` as ``html``, a page under ``reports``; or, for a
    page written elsewhere to be moved there later, a page that will sit in ``url_from``."""
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import CoalesceStreamsPreprocessor

    script = install_assets(reports)
    exporter = HTMLExporter(
        extra_loaders=[DictLoader({"offline.html.j2": _TEMPLATE})],
        template_file="offline.html.j2",
        mathjax_url=Path(os.path.relpath(script, url_from or Path(html).parent)).as_posix(),
    )
    exporter.register_preprocessor(CoalesceStreamsPreprocessor(), enabled=True)
    body, _ = exporter.from_filename(str(executed))
    write_text_atomic(Path(html), body)
