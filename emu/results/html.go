package results

import (
	"encoding/base64"
	"html/template"
	"maps"
	"slices"
)

// PageStyle is the style sheet of every HTML page emu writes (a run's and
// a sweep's report.html, emu reproduce's page), so that they look alike; a
// page appends its own rules after it, inside the same <style> element.
// It is part of each page's template text, not data the template escapes.
const PageStyle = `body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 75em; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.wide { overflow-x: auto; }
figure { margin: 1.5em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #555; }
pre { background: #f7f7f7; padding: 0.7em; overflow-x: auto; font-size: 0.8em; }
.bad { color: #b00; }
code { font-size: 0.9em; }
`

// PageHead opens the template text of a page titled by its data's Title:
// the document's head with PageStyle, and the title again as the heading.
// The run's and the sweep's report.html start with it.
const PageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
` + PageStyle + `</style>
</head>
<body>
<h1>{{.Title}}</h1>
`

// SVGDataURL is an SVG image as a data: URL, which a self-contained page
// inlines as an <img> source.
func SVGDataURL(svg []byte) template.URL {
	return template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(svg))
}

// SortedPairs are m's entries as [key, value], sorted by key: the
// configuration tables of the pages.
func SortedPairs(m map[string]string) [][2]string {
	var out [][2]string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, [2]string{k, m[k]})
	}
	return out
}
