import json, re
import sys
# argv: the tools read by harvest-node.ts and python-tools.py merged ({node, py}), MCP-Bench's tasks/ folder, the output
raw = json.load(open(sys.argv[1]))
tools = {k: v['tools'] for k, v in raw['node'].items()}
tools.update(raw['py'])
def distinctive(n): return bool(re.search(r'[_\-]|[a-z][A-Z]', n))
tasks = []
for f in ['single', 'multi_2server', 'multi_3server']:
    d = json.load(open(f'{sys.argv[2]}/mcpbench_tasks_{f}_runner_format.json'))
    for st in d['server_tasks']:
        servers = st.get('servers') or st['server_name'].split('+')
        for t in st['tasks']:
            names = {(s, tl['name']) for s in servers for tl in tools[s]}
            def mentions(text):
                found = []
                spans = []
                for s, n in sorted(names, key=lambda x: -len(x[0]) - len(x[1])):
                    pats = [re.escape(s) + r'\s*:\s*' + re.escape(n) + r'(?![\w-])']
                    if distinctive(n): pats.append(r'(?<![\w:-])' + re.escape(n) + r'(?![\w-])')
                    else: pats.append(r'(?<![\w:-])`?' + re.escape(n) + r'`?(?=\()')
                    spaced = re.sub(r'[_-]+', ' ', re.sub(r'([a-z])([A-Z])', r'\1 \2', n)).lower()
                    loose = [r'(?i)(?<![\w:-])' + re.escape(spaced).replace('\\ ', r'[\s_-]+') + r'(?![\w-])'] if ' ' in spaced else []
                    for p in pats + loose:
                        for m in re.finditer(p, text):
                            if any(a <= m.start() < b for a, b in spans): continue
                            if p not in loose: spans.append((m.start(), m.end()))
                            if (s, n) not in found: found.append((s, n))
                return found, spans
            needed, _ = mentions(t['task_description'] + '\n' + t['dependency_analysis'])
            steps = []
            desc = re.sub(r'(?<=[.!?:])\s+(?=\d+\)\s)', '\n', t['task_description'])
            for line in re.split(r'\n+', desc):
                m = re.match(r'\s*(?:\d+[.)]|[a-z][.)]|[ivx]+[.)]|Step \d+[:.]?|[-•*])\s+(.*)', line)
                if not m: continue
                body = m.group(1)
                found, spans = mentions(body)
                if not found: continue
                text = body
                for a, b in sorted(spans, reverse=True): text = text[:a] + text[b:]
                text = re.sub(r'\(\s*(and|or|,|\s)*\)', '', text)
                text = re.sub(r'\s+', ' ', text).strip()
                steps.append([text] + [f'{s}/{n}' for s, n in found])
            tasks.append({'id': t['task_id'], 'servers': servers, 'task': t['fuzzy_description'], 'tools': [f'{s}/{n}' for s, n in needed], 'steps': steps})
print(len(tasks), sum(len(t['tools']) for t in tasks)/len(tasks), sum(1 for t in tasks if not t['tools']), sum(len(t['steps']) for t in tasks))
import random; random.seed(3)
for t in random.sample(tasks, 3):
    print(t['id'], t['tools']); print(t['task'][:300]); 
    for s in t['steps'][:6]: print('   ', s)
json.dump(tasks, open(sys.argv[3], 'w'), indent=1, ensure_ascii=False)
