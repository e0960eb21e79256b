"""Machines side by side (docs/machines.md): what carries over from the primary GPU to the book's other measured
GPUs. It measures nothing of its own: `carry` reads every chapter's facts and guards, and the claims ledger, on each
machine, and `facts` names the figures the page's sentences print."""
