#!/usr/bin/python3
"""plots/gallery.html: every figure with its caption, its equation and its data commands.

    gallery.py [MAKE]     writes the page to standard output

The figures and their data files are those of `make -C plots list`; the title, caption,
equation, source and formulas of a figure are the header lines of its NAME.gp
("# title: ...", each key possibly on several lines, joined); the commands that regenerate
a data file are the recipe of its rule, as `make -n` prints it (run in plots/, with
RLREF=rlref).  A figure whose script lacks a key, or whose script is missing, is an error.
The page loads nothing from the network: its style and its one script are inline.  The
script reports, in the element #load-status, how many of the page's images (the PNG of
every figure, or its @2x PNG on a screen of two device pixels per pixel) and of the SVGs
it asks for loaded, how many images are shown at 2x, and which did not load.
"""
import html
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = ("title", "caption", "equation", "source", "formulas")
HEADER_RE = re.compile(r"^#\s*(title|caption|equation|source|formulas):\s?(.*)$")


def run_make(make, *args):
    env = dict(os.environ)
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        env.pop(k, None)
    out = subprocess.run([make, "-s", "--no-print-directory", "-C", HERE] + list(args),
                         check=True, stdout=subprocess.PIPE, text=True, env=env)
    return out.stdout


def figures(make):
    """[(name, [data files])] in the order of `make list`."""
    result = []
    for line in run_make(make, "list").splitlines():
        name, _, data = line.partition(":")
        result.append((name.strip(), data.split()))
    return result


def script_of(name):
    for entry in sorted(os.listdir(HERE)):
        path = os.path.join(HERE, entry, name + ".gp")
        if os.path.isfile(path):
            return os.path.join(entry, name + ".gp")
    sys.exit("gallery.py: no script %s.gp in any family folder of plots/" % name)


def header(script):
    """The header keys of a gnuplot script: {key: text}."""
    fields = {}
    with open(os.path.join(HERE, script), encoding="utf-8") as f:
        for line in f:
            m = HEADER_RE.match(line.rstrip("\n"))
            if m:
                key, text = m.group(1), m.group(2).strip()
                fields[key] = (fields[key] + " " + text).strip() if key in fields else text
            elif not line.startswith("#"):
                break
    missing = [k for k in KEYS if not fields.get(k)]
    if missing:
        sys.exit("gallery.py: plots/%s has no header line for %s" % (script, ", ".join(missing)))
    return fields


def data_commands(make, data):
    """The shell commands, run in plots/, that write the data files."""
    if not data:
        return []
    text = run_make(make, "-n", "-B", "RLREF=rlref", "PYTHON=python3", *data)
    commands = []
    for line in text.splitlines():
        if line.startswith("command -v") or not line.strip():
            continue
        line = re.sub(r"^LC_ALL=C\s+", "", line)
        line = re.sub(r"> (\S+)\.tmp && mv \S+ \S+$", r"> \1", line)
        if line not in commands:
            commands.append(line)
    return commands


STYLE = """
body { font-family: "DejaVu Sans", sans-serif; max-width: 1260px; margin: 2em auto; padding: 0 1em;
       color: #111; line-height: 1.45; }
h1 { font-size: 1.6em; }
h2 { font-size: 1.25em; margin-top: 2.2em; border-top: 1px solid #ccc; padding-top: 0.8em; }
figure { margin: 0; }
figure img { width: 100%; max-width: 1200px; height: auto; border: 1px solid #ddd; }
figcaption p { margin: 0.4em 0; }
.equation { font-family: "DejaVu Serif", serif; font-size: 1.05em; background: #f6f6f6;
            padding: 0.3em 0.6em; }
.meta { color: #444; font-size: 0.92em; }
pre { background: #f6f6f6; padding: 0.5em 0.8em; overflow-x: auto; font-size: 0.88em; }
#load-status { font-weight: bold; }
nav a { margin-right: 0.8em; }
"""

# Counts the page's images that loaded, then loads every figure's SVG the same way, and
# writes the result into #load-status (read by tests/plots/test_gallery.sh).
SCRIPT = """
window.addEventListener("load", function () {
  var status = document.getElementById("load-status");
  var imgs = Array.prototype.slice.call(document.querySelectorAll("figure img"));
  var failed = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); })
                   .map(function (i) { return i.getAttribute("src"); });
  var svgs = Array.prototype.slice.call(document.querySelectorAll("a.svg"))
                  .map(function (a) { return a.getAttribute("href"); });
  var hidpi = imgs.filter(function (i) { return /@2x\.png$/.test(i.currentSrc); }).length;
  var pending = svgs.length, svgFailed = [];
  function report() {
    var all = failed.concat(svgFailed);
    status.textContent = "loaded " + (imgs.length - failed.length) + " of " + imgs.length +
      " images (" + hidpi + " at 2x) and " + (svgs.length - svgFailed.length) + " of " +
      svgs.length + " SVGs" +
      (all.length ? "; failed: " + all.join(" ") : "");
    status.setAttribute("data-done", all.length ? "failed" : "ok");
  }
  if (pending === 0) { report(); return; }
  svgs.forEach(function (src) {
    var probe = new Image();
    probe.onload = function () { if (--pending === 0) report(); };
    probe.onerror = function () { svgFailed.push(src); if (--pending === 0) report(); };
    probe.src = src;
  });
});
"""


def page(entries):
    e = html.escape
    out = ['<!DOCTYPE html>', '<html lang="en">', '<head>', '<meta charset="utf-8">',
           '<title>rlref figures</title>', '<style>' + STYLE + '</style>', '</head>', '<body>',
           '<h1>rlref figures</h1>',
           '<p>Every figure is drawn from the output of <code>rlref</code>: each plotted number is '
           'a certified value rounded once to binary64. Each comes as PNG, PNG at twice the '
           'resolution, SVG and PDF, of one type scale. Regenerate one with '
           '<code>make -C plots figures/NAME.png</code>, all with <code>make plots</code>; the '
           'data commands below run in <code>plots/</code>, with <code>rlref</code> the built '
           'command line.</p>',
           '<p id="load-status" data-done="">loading</p>', '<nav>']
    out += ['<a href="#%s">%s</a>' % (e(n), e(f["title"])) for n, f, _, _ in entries]
    out.append('</nav>')
    for name, f, script, commands in entries:
        base = "figures/" + name
        out += ['<section id="%s">' % e(name), '<h2>%s</h2>' % e(f["title"]), '<figure>',
                '<img src="%s.png" srcset="%s.png 1x, %s@2x.png 2x" alt="%s">'
                % (e(base), e(base), e(base), e(f["title"])),
                '<figcaption>', '<p>%s</p>' % e(f["caption"]),
                '<p class="equation">%s</p>' % e(f["equation"]),
                '<p class="meta">Source: %s. Formulas: %s.</p>' % (e(f["source"]), e(f["formulas"])),
                '<p class="meta">Files: <a href="%s.png">PNG</a> · <a href="%s@2x.png">PNG 2x</a> · '
                '<a class="svg" href="%s.svg">SVG</a> · <a class="pdf" href="%s.pdf">PDF</a> · '
                'script <code>plots/%s</code></p>' % (e(base), e(base), e(base), e(base), e(script)),
                '</figcaption>', '</figure>']
        if commands:
            out.append('<p class="meta">Data (in <code>plots/</code>):</p>')
            out.append('<pre>%s</pre>' % e("\n".join(commands)))
        out.append('</section>')
    out += ['<script>' + SCRIPT + '</script>', '</body>', '</html>']
    return "\n".join(out) + "\n"


def main(argv):
    make = argv[1] if len(argv) > 1 else "make"
    entries = []
    for name, data in figures(make):
        script = script_of(name)
        entries.append((name, header(script), script, data_commands(make, data)))
    sys.stdout.write(page(entries))


if __name__ == "__main__":
    main(sys.argv)
