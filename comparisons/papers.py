"""The papers' comparisons: their figures as the papers report them, the
arms that stand for their rows here, and the orderings checked (`verdict`).

An arm is a system's fine-tuned scores (`bert`), at a checkpoint along its
pretraining (`no_nsp@first`: the first checkpoint; `bert@equal`: the step all
pretrained systems share), or fine-tuned otherwise (`bert+concat_last_four`:
feature-based NER over those layers). The pseudo-task `held_out_lm` is the
held-out pretraining loss (lower is better). The papers' tasks map to ours by
level: SQuAD's token-level signal to CoNLL NER (and SQuAD on the GPU tier),
GLUE's sentence-level tasks to STS-B, SST-2, MRPC, word order and next-sentence choice.
"""

import dataclasses


@dataclasses.dataclass(frozen=True)
class Ordering:
    """`ahead` beats `behind` on `tasks`: "all", "token" or "sentence" (by the
    task's level), or one task's name."""

    ahead: str
    behind: str
    tasks: str = "all"
    higher_is_better: bool = True


@dataclasses.dataclass(frozen=True)
class PaperComparison:
    key: str
    name: str  # short, for tables
    title: str
    paper: str  # the paper's own figures and words, Markdown
    arms: tuple  # (arm, label)
    orderings: tuple
    small_budget: str = ""  # what a small budget cannot be expected to show, and why
    tasks: str = "all"  # the tasks its results show: "all", "steps_task" or one task


COMPARISONS = (
    PaperComparison(
        "table5", "Table 5", "BERT Table 5: pretraining tasks (BERT-Base architecture, dev sets)",
        "| | MNLI-m | MRPC | SST-2 | SQuAD F1 |\n| --- | --- | --- | --- | --- |\n"
        "| BERT-Base | 84.4 | 86.7 | 92.7 | 88.5 |\n| No NSP | 83.9 | 86.5 | 92.6 | 87.9 |\n"
        "| LTR & No NSP | 82.1 | 77.5 | 92.1 | 77.8 |\n| + BiLSTM | 82.1 | 75.7 | 91.6 | 84.9 |",
        (("bert", "BERT (MLM + NSP)"), ("no_nsp", "No NSP"), ("ltr", "LTR & No NSP"), ("ltr_bilstm", "+ BiLSTM")),
        (Ordering("bert", "no_nsp"), Ordering("no_nsp", "ltr"), Ordering("ltr_bilstm", "ltr", "token"),
         Ordering("ltr", "ltr_bilstm", "sentence"), Ordering("no_nsp", "ltr_bilstm")),
        small_budget="small-budget work (RoBERTa, SpanBERT, XLNet's own ablation) finds next-sentence "
                     "prediction neutral or harmful, so BERT against No NSP is expected within noise or reversed; "
                     "the + BiLSTM row's gaps were under a point on MNLI and SST-2."),
    PaperComparison(
        "table7", "Table 7", "BERT Table 7: feature-based NER (CoNLL-2003 dev F1, BERT-Base)",
        "| layers | dev F1 |\n| --- | --- |\n| embeddings | 91.0 |\n| second-to-last hidden | 95.6 |\n"
        "| last hidden | 94.9 |\n| weighted sum of last four | 95.9 |\n| concat last four | 96.1 |\n"
        "| weighted sum of all 12 | 95.5 |\n| fine-tuning | 96.4 |\n| ELMo (for reference) | 95.7 |",
        (("bert", "fine-tuning"), ("bert+embeddings", "embeddings"), ("bert+second_to_last", "second-to-last"),
         ("bert+last", "last"), ("bert+sum_last_four", "sum of last four"),
         ("bert+concat_last_four", "concat last four"), ("bert+weighted_sum_all", "weighted sum of all"),
         ("elmo", "ELMo (its biLM's features)")),
        (Ordering("bert", "bert+concat_last_four", "ner"), Ordering("bert+concat_last_four", "bert+last", "ner"),
         Ordering("bert+last", "bert+embeddings", "ner"), Ordering("bert+concat_last_four", "bert+embeddings", "ner"),
         Ordering("bert", "elmo", "ner"), Ordering("bert+concat_last_four", "elmo", "ner"),
         Ordering("bert", "bert+weighted_sum_all", "ner"), Ordering("bert+weighted_sum_all", "bert+embeddings", "ner")),
        small_budget="fine-tuning was 0.3 F1 ahead of the best features and 0.7 ahead of ELMo, gaps not "
                     "expected to clear the noise of a few seeds on a CoNLL subset.",
        tasks="ner"),
    PaperComparison(
        "table6", "Table 6", "BERT Table 6: model size at fixed steps",
        "From 3 layers of 768 to 24 of 1024, the held-out masked-LM perplexity falls and MNLI, MRPC and SST-2 "
        "rise at every step up in size: \"larger models lead to a strict accuracy improvement across all four "
        "datasets\".",
        (("bert", "BERT"), ("bert_small", "BERT, smaller")),
        (Ordering("bert", "bert_small"), Ordering("bert", "bert_small", "held_out_lm", higher_is_better=False)),
        small_budget="one pretraining run per size, so the held-out loss has no spread over pretraining seeds "
                     "and its ordering is ~ at best."),
    PaperComparison(
        "steps", "Steps figure", "BERT's pretraining-steps figure: MLM against LTR along pretraining",
        "MNLI accuracy of checkpoints along pretraining: the masked LM converges marginally slower than the "
        "left-to-right LM but is ahead in absolute accuracy almost from the start.",
        (("no_nsp@first", "MLM, first checkpoint"), ("ltr@first", "LTR, first checkpoint"),
         ("no_nsp@equal", "MLM, equal steps"), ("ltr@equal", "LTR, equal steps"),
         ("no_nsp", "MLM, whole budget"), ("ltr", "LTR, whole budget")),
        (Ordering("no_nsp@first", "ltr@first"), Ordering("no_nsp@equal", "ltr@equal"), Ordering("no_nsp", "ltr")),
        small_budget="the figure spans a million steps; here a few checkpoints of a short run, all before "
                     "either model converges.",
        tasks="steps_task"),
    PaperComparison(
        "equal_steps", "Equal steps", "The equal-steps view (the papers' protocol: same steps, same batch)",
        "The papers compare systems at equal steps; a left-to-right LM (every token predicted) and XLNet's "
        "two streams cost more per step than a masked LM, so at equal FLOPs they get fewer steps.",
        (("bert@equal", "BERT"), ("no_nsp@equal", "No NSP"), ("ltr@equal", "LTR & No NSP"),
         ("xlnet@equal", "XLNet")),
        (Ordering("bert@equal", "no_nsp@equal"), Ordering("no_nsp@equal", "ltr@equal"),
         Ordering("xlnet@equal", "bert@equal")),
        tasks="steps_task"),
    PaperComparison(
        "xlnet", "XLNet vs BERT", "XLNet against BERT with the same data and budget",
        "XLNet's fair comparison (same data, same hyper-parameters) and its ablation put the permutation LM "
        "ahead of BERT, with the largest gains on long-context tasks (RACE, SQuAD); its ablation table "
        "removes memory, span-based prediction and bidirectional data in turn.",
        (("xlnet", "XLNet"), ("bert", "BERT")),
        (Ordering("xlnet", "bert"),),
        small_budget="XLNet's gains came on long contexts with Transformer-XL memory; on the short sequences "
                     "and few steps here there is little for them to act on, and the permutation LM predicts only "
                     "its targets' share of each sequence."),
    PaperComparison(
        "table1", "Table 1", "BERT Table 1: ELMo < OpenAI GPT < BERT (GLUE average)",
        "GLUE average: ELMo 71.0 < OpenAI GPT 75.1 < BERT-Base 79.6.",
        (("elmo", "ELMo"), ("gpt", "OpenAI GPT"), ("bert", "BERT")),
        (Ordering("gpt", "elmo"), Ordering("bert", "gpt")),
        small_budget="the paper's average is over GLUE; here each task is checked on its own. At equal FLOPs "
                     "the left-to-right GPT (every token predicted) and ELMo (a character CNN and LSTMs, both "
                     "directions) get fewer steps than BERT, ELMo several times fewer; ELMo reads words, so its "
                     "windows hold more text; and the paper's systems differed in corpus and size too (GPT on "
                     "BooksCorpus alone, ELMo's biLM of 4,096-cell LSTMs), which one corpus and one size remove."),
    PaperComparison(
        "floor", "Premise", "The premise: pretraining beats random initialisation",
        "Every paper's starting point: fine-tuning a pretrained model beats training the same model from scratch.",
        (("bert", "BERT"), ("xlnet", "XLNet"), ("random", "random init")),
        (Ordering("bert", "random"), Ordering("xlnet", "random"))),
)
