# Scratch: tool definitions of MCP-Bench's Python servers, read from their source as FastMCP
# (or the low-level server) would list them: name, description (docstring), parameters.
import ast, inspect, json, sys, os

def lit(node):
    try: return ast.literal_eval(node)
    except Exception: pass
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "" for v in node.values)
    if isinstance(node, ast.Dict):
        return {lit(k): lit(v) for k, v in zip(node.keys, node.values) if k is not None and lit(k) is not None}
    if isinstance(node, ast.List):
        return [lit(e) for e in node.elts]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = lit(node.left), lit(node.right)
        if isinstance(a, str) and isinstance(b, str): return a + b
    return None

PY_TYPES = {"str":"string","int":"integer","float":"number","bool":"boolean","list":"array","List":"array","dict":"object","Dict":"object"}

def ann_type(a):
    if a is None: return None
    if isinstance(a, ast.Name): return PY_TYPES.get(a.id)
    if isinstance(a, ast.Subscript):
        base = a.value.id if isinstance(a.value, ast.Name) else getattr(a.value, 'attr', None)
        if base in ("Optional",): return ann_type(a.slice)
        if base == "Annotated":
            elts = a.slice.elts if isinstance(a.slice, ast.Tuple) else [a.slice]
            return ann_type(elts[0])
        if base == "Literal":
            return "string"
        return PY_TYPES.get(base)
    if isinstance(a, ast.BinOp): return ann_type(a.left)
    if isinstance(a, ast.Constant) and isinstance(a.value, str):
        try: return ann_type(ast.parse(a.value, mode="eval").body)
        except Exception: return None
    return None

def ann_desc(a):
    # Annotated[T, Field(description=...)] or Annotated[T, "text"]
    if isinstance(a, ast.Subscript) and getattr(a.value, 'id', None) == "Annotated":
        elts = a.slice.elts if isinstance(a.slice, ast.Tuple) else []
        for e in elts[1:]:
            if isinstance(e, ast.Call):
                for kw in e.keywords:
                    if kw.arg == "description": return lit(kw.value)
                if e.args and isinstance(lit(e.args[0]), str) and getattr(e.func,'id','')!='Field': return lit(e.args[0])
            v = lit(e)
            if isinstance(v, str): return v
    if isinstance(a, ast.Subscript) and getattr(a.value, 'id', None) == "Literal":
        return None
    return None

def enum_of(a):
    if isinstance(a, ast.Subscript):
        if getattr(a.value,'id',None)=="Literal":
            v = lit(a.slice) if not isinstance(a.slice, ast.Tuple) else [lit(e) for e in a.slice.elts]
            return v if isinstance(v, list) else [v]
        if getattr(a.value,'id',None) in ("Annotated","Optional"):
            elts = a.slice.elts if isinstance(a.slice, ast.Tuple) else [a.slice]
            return enum_of(elts[0])
    return None

def schema_of(fn):
    props, required = {}, []
    args = fn.args.args
    defaults = [None]*(len(args)-len(fn.args.defaults)) + list(fn.args.defaults)
    for arg, d in zip(args, defaults):
        if arg.arg in ("self","cls","ctx","context"): continue
        t = ann_type(arg.annotation)
        if isinstance(arg.annotation, ast.Name) and arg.annotation.id == "Context": continue
        p = {}
        if t: p["type"] = t
        desc = ann_desc(arg.annotation)
        if d is not None and isinstance(d, ast.Call) and getattr(d.func,'id','') == "Field":
            for kw in d.keywords:
                if kw.arg == "description": desc = lit(kw.value)
            d = d.args[0] if d.args else None
        if desc: p["description"] = desc
        e = enum_of(arg.annotation)
        if e: p["enum"] = e
        props[arg.arg] = p
        if d is None: required.append(arg.arg)
    return {"type":"object","properties":props, **({"required":required} if required else {})}

def tools_in(path):
    tree = ast.parse(open(path).read())
    out = []
    consts = {}
    for c in ast.walk(tree):
        if isinstance(c, ast.ClassDef):
            for st in c.body:
                if isinstance(st, ast.Assign) and isinstance(lit(st.value), str):
                    for tg in st.targets:
                        if isinstance(tg, ast.Name): consts[c.name + "." + tg.id] = lit(st.value)
    def name_of(v):
        x = lit(v)
        if isinstance(x, str): return x
        if isinstance(v, ast.Attribute) and v.attr == "value" and isinstance(v.value, ast.Attribute) and isinstance(v.value.value, ast.Name):
            return consts.get(v.value.value.id + "." + v.value.attr)
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for dec in node.decorator_list:
                call = dec if isinstance(dec, ast.Call) else None
                target = call.func if call else dec
                if isinstance(target, ast.Attribute) and target.attr == "tool":
                    kw = {k.arg: lit(k.value) for k in (call.keywords if call else [])}
                    name = kw.get("name") or (lit(call.args[0]) if call and call.args and isinstance(lit(call.args[0]), str) else None) or node.name
                    desc = kw.get("description") or inspect.cleandoc(ast.get_docstring(node, clean=False) or "")
                    t = {"name": name, "description": desc, "inputSchema": schema_of(node)}
                    ann = kw.get("annotations")
                    if isinstance(ann, dict): t["annotations"] = ann
                    if kw.get("title"): t["title"] = kw["title"]
                    out.append(t)
        if isinstance(node, ast.Call) and getattr(node.func, 'id', getattr(node.func, 'attr', None)) == "Tool":
            kw = {k.arg: lit(k.value) for k in node.keywords}
            for k in node.keywords:
                if k.arg == "name": kw["name"] = name_of(k.value)
            if isinstance(kw.get("name"), str):
                out.append({"name": kw["name"], "description": kw.get("description") or "", "inputSchema": kw.get("inputSchema") or {"type":"object"}})
    return out

if __name__ == "__main__":
    res = []
    for p in sys.argv[1:]:
        res.extend(tools_in(p))
    print(json.dumps(res, indent=1, ensure_ascii=False))

def server_of(path):
    tree = ast.parse(open(path).read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, 'id', getattr(node.func, 'attr', None)) in ("FastMCP", "Server"):
            kw = {k.arg: lit(k.value) for k in node.keywords}
            name = kw.get("name") or (lit(node.args[0]) if node.args else None)
            if isinstance(name, str) or kw.get("instructions"):
                return {"name": name if isinstance(name, str) else None, "instructions": kw.get("instructions") if isinstance(kw.get("instructions"), str) else None}
    return None
