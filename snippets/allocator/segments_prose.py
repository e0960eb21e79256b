from kernelbook import page

r = page.result("allocator.segments")
points = [(c["label"], ok) for c in r.data["cases"] for ok in c["match"]]
agree = [label for label, ok in points if all(ok.values())]
differ = sorted({label for label, ok in points if not all(ok.values())})
print(f"The model agreed with the {page.machine_label(r)} on allocated bytes, reserved bytes and every segment's "
      f"blocks at {len(agree)} of {len(points)} checkpoints"
      + ("." if not differ else f"; it differed in: {', '.join(differ)}."))
