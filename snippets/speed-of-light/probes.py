from kernelbook import page, paths

PROBES = paths.root() / "results" / "PROBES.md"  # the repository's notes of probes that were not stored
ENTRIES = ("SwiGLU over a wider launch grid.", "Occupancy.")  # the entries the page's words lean on, by title

notes = PROBES.read_text(encoding="utf-8") if PROBES.is_file() else ""
for title in ENTRIES:
    found = [(section.split("\n", 1)[0], para) for section in notes.split("\n## ")[1:]
             for para in section.split("\n\n") if para.startswith(f"**{title}**")]
    if not found:
        print(f"`results/PROBES.md` holds no entry {page.code(title)}.\n")
        continue
    section, para = found[0]
    print(f"From `results/PROBES.md`, {page.text(section)}:\n")
    print("\n".join(f"> {page.text(line)}" for line in para.strip().splitlines()) + "\n")
