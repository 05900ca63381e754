"""Each real evidence file of the corpus yields the event its `# what:` line names.

The table gives, per file, the event kinds that line describes (any one of them counts): a py-spy dump gives
`pyspy_thread`/`pyspy_process`/`pyspy_error`, an OOM traceback `oom`, the kernel's OOM killer `oom_kill`, …
"""
from __future__ import annotations

from nccl_forensics.sources import parse_source
from nccl_forensics.sources.discover import sniff

from .corpus import corpus_files, stripped

PYSPY = {"pyspy_thread", "pyspy_process", "pyspy_error"}
KERNEL_OOM = {"oom_kill", "oom_invoked"}
EXPECTED = {   # file-name prefix → the event kinds its `# what:` line names
    "ArjunaCluster_ArjunaUsers_52": {"slurm_oom"},
    "Lightning-AI_litgpt_303": {"oom"},
    "NervanaSystems_deepspeech_48": KERNEL_OOM,
    "ShengcaiLiao_QAConv_19": KERNEL_OOM,
    "axolotl-ai-cloud_axolotl_1717": {"oom"},
    "bigscience-workshop_bigscience_file_meg-ds-zero-n16": {"slurm_cancelled"},
    "bigscience-workshop_bigscience_file_meg-n4": {"slurm_cancelled"},
    "bigscience-workshop_bigscience_file_tr11-200B": PYSPY,
    "bigscience-workshop_bigscience_file_tr11-dataloader": PYSPY,
    "bigscience-workshop_bigscience_file_tr11-eval": PYSPY,
    "brain-score_vision_950": {"slurm_oom"},
    "deepspeedai_DeepSpeed_4715": {"oom"},
    "deepspeedai_DeepSpeed_5030": PYSPY,
    "deepspeedai_DeepSpeed_6524": PYSPY,
    "facebookresearch_ParlAI_3084": {"faulthandler", "traceback"},
    "hiyouga_LlamaFactory_3230": KERNEL_OOM,
    "huggingface_accelerate_3104": PYSPY,
    "huggingface_m4-logs_file_tr141-dstate-hung-task": {"hung_task"},
    "huggingface_m4-logs_file_tr141-dstate-rank-pyspy": {"pyspy_error"},
    "huggingface_m4-logs_file_tr141-slurm-node-failure": {"slurm_cancelled", "slurm_exit"},
    "huggingface_peft_1703": {"oom", "nccl_error"},
    "huggingface_picotron_tutorial_6": {"child_failed"},
    "kyuz0_amd-strix-halo-vllm-toolboxes_11": {"oom"},
    "modelscope_ms-swift_5943": {"oom"},
    "modelscope_ms-swift_6312": {"pyspy_process"},
    "mozilla_DeepSpeech_2055": KERNEL_OOM,
    "pcyin_tranX_41": KERNEL_OOM,
    "pytorch_pytorch_123070": {"child_failed"},
    "pytorch_pytorch_54818": {"faulthandler"},
    "pytorch_pytorch_72086": {"faulthandler"},
    "rwth-i6_returnn_1484": PYSPY,
    "rwth-i6_returnn_1811": PYSPY,
    "sgl-project_sglang_33549": {"pyspy_error"},
    "sgl-project_sglang_3745": {"faulthandler"},
    "shibing624_MedicalGPT_317": {"oom"},
    "snakemake_snakemake-executor-plugin-slurm_371": {"slurm_oom"},
    "verl-project_verl_1158": {"heartbeat"},
    "verl-project_verl_7180": PYSPY,
    "vllm-project_vllm_2731": {"faulthandler"},
    "vllm-project_vllm_50835": PYSPY,
    "xxayt_MGSV_2": {"worker_failed"},
}
FILES = corpus_files("evidence")
FLOOR = 0.95


def expected(path) -> set[str] | None:
    return next((kinds for prefix, kinds in EXPECTED.items() if path.name.startswith(prefix)), None)


def test_every_evidence_file_has_an_expectation():
    assert FILES and [p.name for p in FILES if expected(p) is None] == []


def test_nearly_every_evidence_file_yields_the_event_it_is_about(tmp_path, capsys):
    misses = []
    for i, path in enumerate(FILES):
        kinds = {ev.kind for ev in parse_source(sniff(str(stripped(path, tmp_path / str(i))))).events}
        if not kinds & expected(path):
            misses.append(f"{path.name}: wanted one of {sorted(expected(path))}, got {sorted(kinds)}")
    share = 1 - len(misses) / len(FILES)
    with capsys.disabled():
        print(f"\ncorpus/evidence: {len(FILES) - len(misses)} of {len(FILES)} files yield their event ({share:.0%})")
        for miss in misses:
            print("  " + miss)
    assert share >= FLOOR
