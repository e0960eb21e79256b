from kernelbook.cli import main

raise SystemExit(main())
