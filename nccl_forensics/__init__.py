"""ncclf: post-mortem forensics for hung or crashed multi-GPU PyTorch/NCCL jobs.

The library behind the `ncclf` command. Data flows one way: discover → parse → events → timelines →
detectors → verdict → render. The entry points: `diagnosis.diagnose(paths)`, `collect.parse_paths(paths)`,
`topo.topology_from_paths(paths)`; `ncclf --help` lists the commands built on them.

A regular package, not an implicit namespace one: a second checkout's `nccl_forensics/` folder on sys.path
(the current directory, say) must not merge its modules into this one.
"""
