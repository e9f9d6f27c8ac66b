"""The view's one stylesheet: every colour derived from JupyterLab's theme variables (``--jp-…``).

Text colours are the theme's foreground mixed with a hue (``color-mix``), so they keep their
meaning (blue plan, orange pause, red veto and error, green ok) and stay readable on the theme's
background in Light, Dark and High Contrast alike: the mix always leans towards the theme's own
text colour. Backgrounds are the theme's background tinted with a little of the hue. Pages
without JupyterLab's variables (nbviewer, VS Code, static HTML) get the fallbacks after the comma
(VS Code's editor colours, else GitHub-like light colours). Meaning never rests on colour alone:
pauses, vetoes and errors also carry a mark (‖ ⊘ ✖) and a word.

When a view loses its kernel (restart, shutdown), ipywidgets adds ``jupyter-widgets-disconnected``
to every widget element (by itself on a restart; on a shutdown when the key guard tells it, ``keyguard.py``);
the rules at the end use that class to say so in the view and to stop its buttons from taking clicks that could
no longer reach anything.
"""

from __future__ import annotations

__all__ = ["ROOT_CLASS", "HUES", "PHASE_HUES", "STATUS_HUES", "stylesheet"]

ROOT_CLASS = "noesis-nb-view"  # on the live view and on the static snapshot

# hue name -> (JupyterLab variable, fallback): mixed with the foreground for text, with the background for tints
HUES = {
    "blue": ("--jp-brand-color0", "#0969da"),
    "purple": ("--md-purple-700", "#8250df"),
    "teal": ("--jp-info-color0", "#0097a7"),
    "orange": ("--jp-warn-color0", "#bc4c00"),
    "red": ("--jp-error-color0", "#cf222e"),
    "green": ("--jp-success-color0", "#1a7f37"),
    "grey": ("--jp-ui-font-color2", "#59636e"),
}
PHASE_HUES = {
    "start": "grey",
    "observe": "grey",
    "interpret": "blue",
    "plan": "blue",
    "direction": "blue",
    "intuition": "purple",
    "reason": "purple",
    "model": "purple",
    "integration": "teal",
    "steer": "teal",
    "drain": "orange",
    "action_candidate": "orange",
    "governance": "green",
    "act": "orange",
    "tool": "orange",
    "reflect": "blue",
    "learn": "blue",
    "runtime": "grey",
    "terminate": "grey",
    "insight": "grey",
    "memory": "grey",
    "error": "red",
    "end": "grey",
    "other": "grey",
}
STATUS_HUES = {
    "running": "blue",
    "paused": "orange",
    "ok": "green",
    "error": "red",
    "vetoed": "red",
    "rejected": "red",  # a run vetoed because a person (or an approver policy) rejected a tool call
    "cancelled": "grey",
    "lost": "red",
}
FLAG_HUES = {"pause": "orange", "veto": "red", "error": "red", "abandoned": "grey"}

_FG = "var(--jp-ui-font-color1, var(--vscode-editor-foreground, #1f2328))"
_BG = "var(--jp-layout-color0, var(--vscode-editor-background, #ffffff))"
_MONO = "var(--jp-code-font-family, var(--vscode-editor-font-family, ui-monospace, SFMono-Regular, Menlo, monospace))"


def _hue(name: str) -> str:
    variable, fallback = HUES[name]
    return f"var({variable}, {fallback})"


def _variables() -> str:
    lines = [f"--nnb-fg:{_FG}", f"--nnb-bg:{_BG}"]
    lines.append("--nnb-muted:color-mix(in srgb, var(--nnb-fg) 74%, var(--nnb-bg))")
    lines.append("--nnb-line:color-mix(in srgb, var(--nnb-fg) 16%, var(--nnb-bg))")
    lines.append("--nnb-raised:color-mix(in srgb, var(--nnb-fg) 5%, var(--nnb-bg))")
    for name in HUES:
        lines.append(f"--nnb-{name}:color-mix(in srgb, {_hue(name)} 55%, var(--nnb-fg))")
        lines.append(f"--nnb-{name}-tint:color-mix(in srgb, {_hue(name)} 14%, var(--nnb-bg))")
        lines.append(f"--nnb-{name}-edge:color-mix(in srgb, {_hue(name)} 60%, var(--nnb-bg))")
    return ";".join(lines)


def _rules() -> list[str]:
    r = ROOT_CLASS
    rules = [
        f".{r}{{{_variables()};color:var(--nnb-fg);font-size:var(--jp-ui-font-size1,13px)}}",
        f".{r} .nnb-muted,.{r} .nnb-t,.{r} .nnb-a{{color:var(--nnb-muted)}}",
        f".{r} code,.{r} pre,.{r} .nnb-mono{{font-family:{_MONO}}}",
        f".{r} pre{{white-space:pre-wrap;word-break:break-word;overflow-wrap:anywhere;max-height:260px;overflow:auto;"
        "margin:2px 0 4px 0;padding:4px 6px;background:var(--nnb-raised);color:var(--nnb-fg);border-radius:3px}",
        f".{r} .nnb-h{{line-height:1.6;white-space:normal;overflow-wrap:anywhere}}",
        # inside a widget's HTML, text would inherit ipywidgets' 28px line: a wrapped line would leave a gap
        f".{r} .nnb-counts{{font-size:12px;line-height:1.6}}",
        f".{r} .nnb-badge{{display:inline-block;border-radius:9px;padding:0 8px;font-size:12px;font-weight:600;"
        "border:1px solid var(--nnb-line)}",
        # what is never broken over two lines, wherever it sits and whatever it inherits (a card's or a question's
        # ``overflow-wrap:anywhere``, the narrow window's wrapping of table cells): a detail's label (``argv``,
        # ``asked at``), a status pill, a phase's or a step's name, a time, and a figure with its unit (``nnb-num``:
        # ``0.03 s``, ``+$0.0031``). A label broken one letter per line took the column its text needed
        f".{r} :is(dt,.nnb-badge,.nnb-p,.nnb-k,.nnb-t,.nnb-num){{white-space:nowrap;overflow-wrap:normal}}",
        # step tree
        f".{r} .nnb-steps{{border-top:1px solid var(--nnb-line)}}",
        f".{r} .nnb-step{{border-bottom:1px solid var(--nnb-line);border-left:3px solid transparent}}",
        f".{r} .nnb-sum{{font:12px/1.6 {_MONO};white-space:normal;overflow-wrap:anywhere;padding:1px 4px}}",
        # a hanging indent: the time in its own column, a wrapped line continuing under the text after it
        # (narrower than the time and a short name: the text goes under the time instead of past the view)
        f".{r} .nnb-sum{{display:flex;flex-wrap:wrap;gap:0 1ch}}",
        f".{r} .nnb-sum>.nnb-t{{flex:none}}",
        # columns nothing can squeeze (an icon ipywidgets inserts, a narrow cell): the time and the kind on one line
        # each, the text after them never narrower than a short name, so no word is drawn one letter per line
        f".{r} .nnb-sum>.nnb-line{{flex:1 1 0;min-width:min(16ch,100%)}}",
        f".{r} .nnb-t{{white-space:nowrap}}",
        f".{r} .nnb-k{{display:inline-block;min-width:6.5em;max-width:24ch;font-weight:600;white-space:nowrap;"
        "overflow:hidden;text-overflow:ellipsis;vertical-align:top}",
        # the step list's grid: each ▸ in the first column, each line in the second, whatever is hidden or added
        f".{r} .nnb-steps>.nnb-toggle{{grid-column:1}}",
        f".{r} .nnb-steps>.widget-html{{grid-column:2}}",
        f".{r} .nnb-body{{padding:2px 4px 6px 1.5em}}",
        # a saved view's step (a <details>): its ▸ on the step's line, not alone on a line above it (the line is a block)
        f".{r} details.nnb-step>summary{{display:flex;list-style:none;cursor:pointer}}",
        f".{r} details.nnb-step>summary::-webkit-details-marker{{display:none}}",
        f".{r} details.nnb-step>summary::before{{content:'▸';flex:none;width:1ch;padding:1px 0 1px 4px;font:12px/1.6 {_MONO}}}",
        f".{r} details.nnb-step[open]>summary::before{{content:'▾'}}",
        f".{r} details.nnb-step>summary>.nnb-sum{{flex:1 1 0;min-width:0}}",
        f".{r} .nnb-r{{font:12px/1.5 {_MONO};border-bottom:1px solid var(--nnb-line)}}",
        # a raw event's row: its own disclosure mark, then the time, then the rest; a wrapped line continues under the
        # text after the time (a hanging indent), as a step's line does (a flex summary loses the browser's own mark)
        f".{r} .nnb-r summary{{cursor:pointer;overflow-wrap:anywhere;display:flex;flex-wrap:wrap;gap:0 1ch;list-style:none}}",
        f".{r} .nnb-r summary::-webkit-details-marker{{display:none}}",
        f".{r} .nnb-r summary::before{{content:'▸';flex:none;width:1ch}}",
        f".{r} .nnb-r[open]>summary::before{{content:'▾'}}",
        f".{r} .nnb-r summary>.nnb-t{{flex:none}}",
        f".{r} .nnb-r summary>.nnb-line{{flex:1 1 0;min-width:min(16ch,100%)}}",
        f".{r} .nnb-p{{display:inline-block;min-width:7em;font-weight:600}}",
        f".{r} .nnb-toggle.jupyter-button{{width:24px;min-width:24px;height:20px;padding:0;margin:1px 2px;"
        "background:transparent;color:var(--nnb-fg);border:none;box-shadow:none;font-size:12px;line-height:20px}",
        f".{r} .nnb-toggle.jupyter-button.mod-active{{background:transparent;box-shadow:none;transform:rotate(90deg)}}",
        # a step's toggle and a grid row's opener: ▸ drawn here and hidden from screen readers (``/ ''``), which read
        # the button's tooltip as its name instead ("show this step's events"); ipywidgets renders an icon-only button as
        # an empty <i class="fa fa-…">, a label-less one as a &nbsp; (a name that hides the tooltip)
        f".{r} :is(.nnb-toggle,.nnb-open) .fa{{font:inherit;margin:0}}",
        f".{r} :is(.nnb-toggle,.nnb-open) .fa::before{{content:'▸';content:'▸' / ''}}",
        # cards
        f".{r} .nnb-card{{border:1px solid var(--nnb-orange-edge);border-left:4px solid var(--nnb-orange-edge);"
        "background:var(--nnb-orange-tint);padding:4px 8px;margin:4px 0;border-radius:3px}",
        f".{r} .nnb-card.nnb-veto-card{{border-color:var(--nnb-red-edge);background:var(--nnb-red-tint)}}",
        f".{r} .nnb-card.nnb-decided{{border-color:var(--nnb-line);border-left-color:var(--nnb-green-edge);"
        "background:transparent}",
        f".{r} .nnb-card.nnb-decided.nnb-no{{border-left-color:var(--nnb-red-edge)}}",
        # a card whose run ended before anyone decided: no longer the colour of one waiting
        f".{r} .nnb-card.nnb-undecided{{border-color:var(--nnb-line);background:transparent}}",
        # a decided card's outcome line holds the focus after a click: read by a screen reader, hidden from the eye (the
        # heading says the same), and the card shows the ring, so nothing moves as it takes the focus
        f".{r} .nnb-card .nnb-outcome{{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);"
        "white-space:nowrap;outline:none}",
        f".{r} .nnb-card:has(.nnb-outcome:focus-visible){{outline:2px solid var(--nnb-blue);outline-offset:1px}}",
        # the labels' column as wide as its longest label; the values' column takes what is left, down to nothing
        f".{r} .nnb-card dl{{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:0 10px;margin:4px 0}}",
        f".{r} .nnb-card dt{{color:var(--nnb-muted)}}",
        # a narrow card (a 480px window beside JupyterLab's file panel leaves it ~110px): the labels' column took it
        # all and every value was 0px wide, Approve still offered beside a request no one could read. Under 26em each
        # value goes under its label, the whole width; a long label wraps. The card and the inbox's list of what
        # was asked (its widget, ``nnb-ib-asked-box``) are the containers: each as wide as its parent gives it, never
        # sized by its text (the list itself, sized by its text, collapsed to nothing as a container)
        f".{r} .nnb-card,.{r} .nnb-ib-asked-box{{container-type:inline-size}}",
        f"@container (max-width:26em){{.{r} :is(.nnb-card,.nnb-ib-asked) dl{{grid-template-columns:minmax(0,1fr)}}"
        f".{r} :is(.nnb-card,.nnb-ib-asked) dt{{white-space:normal;overflow-wrap:anywhere}}"
        f".{r} :is(.nnb-card,.nnb-ib-asked) dd{{padding-left:0.75em;margin-bottom:2px}}}}",
        f".{r} .nnb-card dt,.{r} .nnb-card dd{{line-height:1.5}}",
        # what an id or a hash is for, under it: the view's text, not the value's code font
        f".{r} .nnb-why{{font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:11px;line-height:1.4}}",
        f".{r} .nnb-card li{{margin:0;line-height:1.5}}",
        f".{r} .nnb-card dd{{margin:0;overflow-wrap:anywhere;font-family:{_MONO};font-size:12px}}",
        # a decided card's ▸ names its draft, an id of 60 characters and no break: it wraps in a narrow notebook
        f".{r} .nnb-card summary{{overflow-wrap:anywhere}}",
        f".{r} .nnb-card ol{{margin:0;padding-left:2em;font-family:{_MONO};font-size:12px}}",
        # a card's heading and status wrap in a narrow notebook: lines as tall as their text, not ipywidgets' 28px
        f".{r} .nnb-card .widget-html-content{{line-height:1.6}}",
        # a message (a cell run again, a lost kernel) holds commands to copy: they wrap inside a narrow view, never cut
        f".{r} .nnb-msg{{padding:2px 0;min-width:0;max-width:100%;white-space:normal;overflow-wrap:anywhere}}",
        # the same for every HTML widget on a line of its own (a message, a title, a note, the comparison's table):
        # 13px words under a 28px line read as loosely spaced; kept low in specificity, so a card's 1.6 still wins
        f".{r} :where(.widget-vbox>.widget-html)>.widget-html-content{{line-height:1.5}}",
        # a widget with nothing to show (a message not said yet, the stylesheet's own widget, an empty list) takes no
        # room: its margins would leave a blank line between the texts around it
        f".{r} .widget-html:has(>.widget-html-content:empty),.{r} .widget-box:empty{{display:none}}",
        # the stylesheet's own widget (with the lost-kernel notice, hidden until then): no margins while it shows nothing
        f".{r} .widget-html.nnb-css{{margin:0}}",
        # the approvals inbox and the batch grid
        f".{r} .nnb-card.nnb-ib-row{{padding:2px 6px;margin:2px 0}}",
        f".{r} .nnb-ib-line{{line-height:1.5;overflow-wrap:anywhere;white-space:normal}}",
        f".{r} .nnb-ib-row .jupyter-button{{width:auto;padding:0 10px}}",
        f".{r} .nnb-ib-row .widget-html-content{{white-space:normal;min-width:0}}",
        # the question before deciding several: each draft's whole command, wrapped (its row cuts it to one line)
        f".{r} .nnb-ib-confirm .widget-html-content{{white-space:normal;overflow-wrap:anywhere}}",
        f".{r} .nnb-ib-asked{{margin:4px 0;padding-left:2em;max-height:24em;overflow-y:auto}}",
        f".{r} .nnb-ib-asked dl{{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:0 10px;margin:2px 0 6px}}",
        f".{r} .nnb-ib-asked dt{{color:var(--nnb-muted)}}",
        f".{r} .nnb-ib-asked dd{{margin:0;min-width:0;overflow-wrap:anywhere;font-family:{_MONO};font-size:12px}}",
        f".{r} .nnb-ib-asked :is(ol,ul){{margin:0;padding-left:2em}}.{r} .nnb-ib-asked pre{{white-space:pre-wrap;margin:0}}",
        # small buttons (grid ▸, step ▸): a line as tall as the button, not ipywidgets' 28px, so the glyph sits centred
        f".{r} .nnb-grid .jupyter-button{{padding:0;text-align:center;line-height:20px}}",
        f".{r} .nnb-ib-line code{{font-size:12px}}",
        f".{r} .nnb-ib-payload{{display:inline-block;max-width:100%;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;"
        "vertical-align:bottom}",
        f".{r} .nnb-ib-confirm{{border:1px solid var(--nnb-blue-edge);background:var(--nnb-blue-tint);padding:2px 8px;"
        "margin:4px 0;border-radius:3px;gap:8px}",
        # columns sized in characters of the grid's font, so a column holds its words and figures whole: #, task,
        # adapter, status (its pill: "cancelled" and the pill's padding), score ("0.333333"), cost ("$0.00028",
        # "$1,234.57"), time ("waiting", "2 min 03.0 s", and its mark: ``(+ 1.6 s waiting for people)``, which a 12ch
        # column wrapped over three lines at 1280px). Space left goes to the time column first (to 36ch: its mark on its
        # line), then to the task; a cost's ``+ unpriced calls`` is cut to "…" (the cell's title holds it whole). Fixed
        # sizes, never the text's: each line is a grid of its own, and sized alike their columns align
        f".{r} .nnb-grid-line{{display:grid;grid-template-columns:5ch minmax(14ch,1fr) minmax(8ch,12ch) calc(9ch + 18px) "
        f"8ch 10ch minmax(12ch,36ch);gap:0 8px;font:12px/1.7 {_MONO};align-items:center}}",
        # a figure or a short word is never broken over two lines: it stays on one, cut with "…" in a column too narrow
        # for it (an adapter's long name); only the task wraps, between its words (a word longer than its column aside)
        f".{r} .nnb-grid-line>*{{min-width:0;max-width:100%;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}}",
        f".{r} .nnb-grid-line>:nth-child(2){{white-space:normal;overflow:visible;overflow-wrap:break-word}}",
        # a narrow grid (a 700px window, a side panel, a 560px one): the task on a line of its own beside the row's
        # number, the adapter, status, score, cost and time on the line under it, each under its heading
        f".{r} .nnb-grid{{container-type:inline-size}}",
        f"@container (max-width:600px){{.{r} .nnb-grid-line{{grid-template-columns:4ch minmax(8ch,1fr) calc(9ch + 18px) "
        "minmax(5ch,8ch) minmax(8ch,10ch) minmax(7ch,12ch)}"
        f".{r} .nnb-grid-line>:nth-child(2){{grid-column:2/-1}}.{r} .nnb-grid-line>:nth-child(3){{grid-column-start:2}}}}",
        # narrower still (a phone, 400% zoom): the figures two by two under the task (adapter and status, score and
        # cost, then time), the head's as well, so each word stays above its value and nothing runs past the view
        f"@container (max-width:400px){{.{r} .nnb-grid-line{{grid-template-columns:3ch minmax(0,1fr) minmax(0,1fr)}}"
        f".{r} .nnb-grid-line>:is(:nth-child(5),:nth-child(7)){{grid-column-start:2}}}}",
        f".{r} .nnb-grid .widget-hbox{{border-bottom:1px solid var(--nnb-line)}}",
        # a status pill hugs its word (a grid cell would stretch it to its column's width)
        f".{r} .nnb-grid-line>.nnb-badge{{justify-self:start}}",
        f".{r} .nnb-grid-head{{padding-left:36px}}",
        f".{r} .nnb-grid .widget-html{{flex:1 1 auto;min-width:0;margin:0}}",
        # the saved grid (a table): words from the left (task, adapter, status, score), figures from the right; a
        # notebook's own table style puts every cell on the right
        f".{r} table.nnb-grid-table :is(td,th){{text-align:left;padding:1px 6px}}",
        f".{r} table.nnb-grid-table :is(td,th):is(:first-child,:nth-child(n+6)){{text-align:right}}",
        # buttons of the view: our own colours, readable in every theme (ipywidgets' mod-success is not)
        f".{r} .jupyter-button.nnb-btn{{color:var(--nnb-fg);background:var(--nnb-raised);border:1px solid var(--nnb-line);"
        "box-shadow:none}",
        f".{r} .jupyter-button.nnb-yes{{color:var(--nnb-green);background:var(--nnb-green-tint);"
        "border-color:var(--nnb-green-edge)}",
        f".{r} .jupyter-button.nnb-no{{color:var(--nnb-red);background:var(--nnb-red-tint);border-color:var(--nnb-red-edge)}}",
        f".{r} .jupyter-button.nnb-go{{color:var(--nnb-blue);background:var(--nnb-blue-tint);border-color:var(--nnb-blue-edge)}}",
        f".{r} .jupyter-button.nnb-btn:disabled{{opacity:1;color:var(--nnb-muted);background:transparent;"
        "border-style:dashed;cursor:default}",
        f".{r} .widget-text input{{color:var(--nnb-fg);background:var(--nnb-bg);border-color:var(--nnb-line)}}",
        f".{r} .widget-text input::placeholder{{color:var(--nnb-muted);opacity:1}}",
        f".{r} .nnb-invalid input{{border:2px solid var(--nnb-red-edge)}}",  # a reason refused: its box, to correct
        # where the keyboard is: a 2px ring in the view's blue (text-strength, so 3:1 or more against the view in every
        # theme); ipywidgets' own is 1px of light blue (2:1 on white), and a text box had none under our border colour
        f".{r} :focus-visible,.{r} .jupyter-button:focus-visible:enabled{{outline:2px solid var(--nnb-blue);outline-offset:1px}}",
        f".{r} .widget-text input:focus-visible{{outline:2px solid var(--nnb-blue) !important}}",  # beats ipywidgets' none
        f".{r} .noUi-handle:focus-visible{{outline-color:var(--nnb-fg)}}",  # over the slider's track, not only the page
        # a control's name for screen readers only (a reason box, an inbox row's tick box): kept out of sight
        f".{r} .nnb-named>.widget-label,.{r} .nnb-named .widget-label-basic>span{{position:absolute;width:1px;height:1px;"
        "overflow:hidden;clip-path:inset(50%);white-space:nowrap;margin:0;padding:0}",
        # a narrow view, whatever the window (a phone, 300-400% zoom, or a 150px output beside a wide side panel): a
        # control never runs past its view. A button, a reason box, a row of controls is at most its view's width,
        # and a button's label wraps once it has to (a button with room keeps its one line)
        f".{r} .jupyter-button.nnb-btn:not(.nnb-open){{max-width:100%;min-width:0;white-space:normal;height:auto;"
        "min-height:28px;line-height:1.3}",
        f".{r} .nnb-stop-col,.{r} .widget-toggle-buttons,.{r} .widget-text,.{r} .nnb-card .widget-hbox{{max-width:100%}}",
        f".{r} .widget-text,.{r} .widget-text input{{min-width:0}}",
        f".{r} .nnb-scroll-x{{overflow-x:auto;max-width:100%}}",
        # a narrow window (a phone, or 300-400% zoom): long button labels wrap instead of running past the view
        "@media (max-width:480px){"
        f".{r} .jupyter-button.nnb-btn:not(.nnb-open){{white-space:normal;height:auto;min-height:28px;line-height:1.3;"
        "max-width:100%}"
        f".{r} .nnb-steer{{flex-wrap:wrap}}.{r} .nnb-steer .jupyter-button{{flex:none}}"
        f".{r} .nnb-stop-col,.{r} .widget-toggle-buttons{{max-width:100%}}"
        f".{r} .widget-toggle-buttons>div{{display:flex;flex-wrap:wrap}}.{r} .nnb-p,.{r} .nnb-k{{min-width:0}}"
        f".{r} table :is(td,th),.{r} .widget-html-content{{overflow-wrap:anywhere;white-space:normal}}"
        # a table's figures break only at the space before a unit ("0.11" over "s", never "0.1" over "1 s" nor
        # "$0.000" over "0"); a table still too wide scrolls sideways in its own box (``nnb-scroll-x``)
        f".{r} table td.nnb-num{{overflow-wrap:normal;white-space:normal}}"
        f".{r} .widget-text,.{r} .nnb-card .widget-hbox{{max-width:100%}}}}",
        # the view lost its kernel
        f".{r} .nnb-stale{{display:none}}",
        f".{r}.jupyter-widgets-disconnected .nnb-stale{{display:block;color:var(--nnb-red);background:var(--nnb-red-tint);"
        "border:1px solid var(--nnb-red-edge);padding:4px 8px;margin:4px 0;border-radius:3px}",
        # words true only with the kernel, and those true only without it (``stale.py``): swapped when it goes
        f".{r} .nnb-if-stale{{display:none}}",
        f".{r}.jupyter-widgets-disconnected .nnb-if-stale{{display:inline}}",
        f".{r}.jupyter-widgets-disconnected .nnb-if-live{{display:none}}",
        f".{r}.jupyter-widgets-disconnected .jupyter-button{{pointer-events:none;opacity:1;color:var(--nnb-muted);"
        "background:transparent;border-style:dashed;text-decoration:line-through}",
        # the steps / raw events switch is redrawn by the kernel, so it cannot switch either: the mode shown stays
        # readable as a state (not struck through), the other struck through as every action is
        f".{r}.jupyter-widgets-disconnected .widget-toggle-button.mod-active{{text-decoration:none;border-style:solid;"
        "color:var(--nnb-fg)}",
        # its reason boxes and tick boxes take nothing any more either (what was typed there went nowhere)
        f".{r}.jupyter-widgets-disconnected :is(input,textarea,select){{pointer-events:none;border-style:dashed;"
        "background:transparent}",
        # nor keys: ``pointer-events`` stops the mouse only, and Tab still reached each control, whose Enter or typing
        # went nowhere. Inert (Chromium 135+; a browser without it keeps them in the Tab order, as the notice says)
        # takes them out of the Tab order, from a script's focus() and from what a screen reader offers to press
        # (a line that takes the focus only from a script, tabindex -1, stays readable: what was decided)
        f".{r}.jupyter-widgets-disconnected :is(button,input,textarea,select,[tabindex]:not([tabindex='-1']))"
        "{interactivity:inert}",
        # its ▸ toggles keep their grid cells (taken out, the step lines would slide into the toggles' 24px column)
        f".{r}.jupyter-widgets-disconnected .jupyter-button.nnb-toggle{{visibility:hidden}}",
        # the notice above says it once: no red icon of ipywidgets before each of the view's widgets (they pushed
        # the step lines aside)
        f".{r}.jupyter-widgets-disconnected::before,.{r} .jupyter-widgets-disconnected::before{{content:none;display:none}}",
    ]
    for name in HUES:
        rules.append(f".{r} .nnb-c-{name}{{color:var(--nnb-{name})}}")
        rules.append(f".{r} .nnb-badge.nnb-c-{name}{{background:var(--nnb-{name}-tint);border-color:var(--nnb-{name}-edge)}}")
    for flag, hue in FLAG_HUES.items():
        rules.append(f".{r} .nnb-f-{flag}{{background:var(--nnb-{hue}-tint);border-left-color:var(--nnb-{hue}-edge)}}")
    rules.append(f".{r} table.nnb-table{{border-collapse:collapse;font-size:12px}}")
    rules.append(f".{r} table.nnb-table td,.{r} table.nnb-table th{{padding:1px 6px;text-align:left;vertical-align:top}}")
    return rules


_STYLESHEET: str | None = None


def stylesheet() -> str:
    """``<style>…</style>`` for the view and the snapshot (built once)."""
    global _STYLESHEET
    if _STYLESHEET is None:
        _STYLESHEET = "<style>" + "".join(_rules()) + "</style>"
    return _STYLESHEET
