"""Count the public API of blockmodes from rustdoc JSON (nightly, --document-hidden-items):

    cargo +nightly rustdoc -p blockmodes --lib -- -Z unstable-options --output-format json --document-hidden-items
    python3 tools/pubcount.py target/doc/blockmodes.json

Items: every path (module, struct, enum, trait, fn, type alias, const, static, macro) the crate
exports under `blockmodes::`, plus the public inherent methods/assoc items of its types, plus trait
methods of its own traits. Prints totals and per-top-module counts."""
import json, sys, collections
d = json.load(open(sys.argv[1]))
idx, paths = d["index"], d["paths"]
own = {k: v for k, v in paths.items() if v["crate_id"] == 0}
kinds = collections.Counter(v["kind"] for v in own.values())
items = len(own)
methods = 0
per = collections.Counter()
for k, v in own.items():
    top = "::".join(v["path"][:2])
    per[top] += 1
    it = idx.get(k)
    if not it: continue
    inner = it["inner"]
    for kind in ("struct", "enum", "union"):
        if kind in inner:
            for iid in inner[kind].get("impls", []):
                imp = idx.get(str(iid)) or idx.get(iid)
                if not imp: continue
                im = imp["inner"]["impl"]
                if im.get("trait") is None and not im.get("is_synthetic") and not im.get("blanket_impl"):
                    for mid in im["items"]:
                        m = idx.get(str(mid)) or idx.get(mid)
                        if m and m.get("visibility") == "public":
                            methods += 1; per[top] += 1
    if "trait" in inner:
        n = len(inner["trait"]["items"]); methods += n; per[top] += n
print(f"paths {items} ({dict(kinds)}), inherent methods + trait items {methods}, total {items+methods}")
for k, n in sorted(per.items()):
    print(f"  {k:40} {n}")
