import textwrap

from kernelbook import page

r = page.result("allocator.fragmentation")
err = next((c["error"] for c in r.data["default"]["checkpoints"] if c["error"]), None)
if err:
    message = "\n".join(textwrap.wrap(f"{err['type']}: {err['message']}", 100, break_on_hyphens=False))
    print(page.code_block(message))
    print(f'\n??? note "memory_summary() after the error"\n{page.code_block(err["summary"].rstrip(), indent="    ")}\n')
else:
    print(page.provenance(r))
