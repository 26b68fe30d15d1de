#!/usr/bin/env bash
# links.sh: every link in README.md, docs/*.md and the READMEs under examples/ and templates/
# stays inside the repository and resolves: a relative path must name a file or directory of the
# repository (never one outside it: no ../ past the root, no ../shared), a URL (http:, mailto:,
# ...) is refused, and an anchor (#heading) must match a heading of the Markdown file it points
# into, as a code host derives heading ids. Links in code (fenced or indented blocks, `spans`)
# are not links. Then the same checker must fail on scratch files with each kind of bad link.
source "$(dirname "$0")/lib.sh"

cat > $T/links.py <<'PY'
import os, re, sys, urllib.parse

root = os.path.realpath(sys.argv[1])
files = sys.argv[2:]
errors = []

def prose_lines(text, keep_spans=False):
    """(line number, line) of the lines outside code blocks, with code spans blanked (kept, for
    headings, with keep_spans)."""
    out, fence, prev_blank, in_indented = [], None, True, False
    for n, line in enumerate(text.split("\n"), 1):
        m = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            prev_blank = False
            continue
        if m:
            fence = m.group(1)
            continue
        if (in_indented or prev_blank) and re.match(r"^( {4}|\t)", line):
            in_indented = True
            continue
        in_indented = False
        prev_blank = line.strip() == ""
        out.append((n, line if keep_spans else re.sub(r"(`+)(.+?)\1", lambda s: " " * len(s.group(0)), line)))
    return out

def slug(heading):
    """A heading's id as GitHub makes it: lower case, markup and punctuation gone, spaces to -."""
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)      # a link keeps its text
    h = re.sub(r"<[^>]+>", "", h).strip().lower()
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")

anchor_cache = {}
def anchors(path):
    if path not in anchor_cache:
        ids, seen = set(), {}
        lines = prose_lines(open(path, encoding="utf-8").read(), keep_spans=True)
        for i, (n, line) in enumerate(lines):
            m = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
            text = m.group(1) if m else None
            if not m and i > 0 and re.match(r"^ {0,3}(=+|-+)\s*$", line) and lines[i - 1][0] == n - 1 \
                    and lines[i - 1][1].strip() and not lines[i - 1][1].lstrip().startswith("|"):
                text = lines[i - 1][1].strip()
            if text is not None:
                s = slug(text)
                k = seen.get(s, 0)
                seen[s] = k + 1
                ids.add(s if k == 0 else f"{s}-{k}")
            for a in re.findall(r"""<[^>]*\b(?:id|name)=["']([^"']+)["']""", line):
                ids.add(a)
        anchor_cache[path] = ids
    return anchor_cache[path]

link_re = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+\"[^\"]*\")?\s*\)")
ref_re = re.compile(r"^ {0,3}\[[^\]]+\]:\s+(\S+)")

for f in files:
    rel = os.path.relpath(f, root)
    for n, line in prose_lines(open(f, encoding="utf-8").read()):
        targets = [m.group(1) for m in link_re.finditer(line)]
        m = ref_re.match(line)
        if m:
            targets.append(m.group(1))
        for t in targets:
            t = t[1:-1] if t.startswith("<") else t
            where = f"{rel}:{n}: ({t})"
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", t) or t.startswith("//"):
                errors.append(f"{where}: leaves the repository (a URL)")
                continue
            if "../shared" in t:
                errors.append(f"{where}: points at ../shared, outside the repository")
                continue
            path, _, anchor = t.partition("#")
            path = urllib.parse.unquote(path)
            if path.startswith("/"):
                errors.append(f"{where}: an absolute path")
                continue
            target = os.path.realpath(os.path.join(os.path.dirname(f), path)) if path else os.path.realpath(f)
            if target != root and not target.startswith(root + os.sep):
                errors.append(f"{where}: leaves the repository")
                continue
            if not os.path.exists(target):
                errors.append(f"{where}: no such file or directory")
                continue
            if anchor:
                if not target.endswith(".md") or os.path.isdir(target):
                    errors.append(f"{where}: an anchor into something that is not a Markdown file")
                elif anchor not in anchors(target):
                    errors.append(f"{where}: no heading #{anchor} in {os.path.relpath(target, root)}")

for e in errors:
    print(e)
print(f"{len(files)} files, {len(errors)} bad links")
sys.exit(1 if errors else 0)
PY

files=(README.md docs/*.md)
while IFS= read -r f; do files+=("$f"); done < <(find examples templates -name README.md | sort)
check "every link in README.md, docs/ and the examples' and templates' READMEs resolves inside the repository" \
    python3 $T/links.py . "${files[@]}"
same "README.md and docs/ are among the files checked" "$(printf '%s\n' "${files[@]}" | grep -c '^docs/.*\.md$\|^README.md$')" \
    "$(ls README.md docs/*.md | wc -l)"

# The checker itself: a scratch repository with one bad link of each kind.
R=$T/repo
mkdir -p $R/docs $R/sub
printf '# Title\n\n## A `code` heading: with punctuation!\n\nSee [b](docs/b.md#second-part), [dir](sub), [here](#title),\n[that](#a-code-heading-with-punctuation), ![img](sub/x.txt) and [ref][r].\n\n[r]: docs/b.md\n\n    [not a link](nowhere.md)\n\n```\n[nor this](nowhere.md)\n```\n\nand `[nor this](nowhere.md)` either.\n' > $R/README.md
printf '# B\n\n## Second part\n\nBack to [the top](../README.md#title).\n' > $R/docs/b.md
printf 'x\n' > $R/sub/x.txt
check "good links pass" python3 $T/links.py $R $R/README.md $R/docs/b.md
bad() {
    local what=$1 text=$2 why=$3
    printf '# B\n\n%s\n' "$text" > $R/docs/bad.md
    check_fails "refused: $what" 1 python3 $T/links.py $R $R/docs/bad.md
    same "refused for the right reason: $what" "$(grep -c -- "$why" $T/.out)" 1
}
bad "a missing file" "[x](missing.md)" "no such file or directory"
bad "a missing anchor" "[x](b.md#third-part)" "no heading #third-part in docs/b.md"
bad "a missing anchor in the same file" "[x](#nothing)" "no heading #nothing in docs/bad.md"
bad "a path out of the repository" "[x](../../outside.md)" ": leaves the repository$"
bad "../shared" "[x](../shared/DESIGN.md)" "points at ../shared"
bad "a URL" "[x](https://example.com/)" "leaves the repository (a URL)"
bad "an absolute path" "[x](/etc/passwd)" "an absolute path"
bad "an anchor into a file that is not Markdown" "[x](../sub/x.txt#L1)" "not a Markdown file"
bad "a bad reference definition" "[r]: ../nowhere.md" "no such file or directory"
finish
