"""The papers' comparisons: their figures as the papers report them, the
arms that stand for their rows here, and the orderings checked (`verdict`).

An arm is a system's fine-tuned scores (`bert`), at a point of an
equal-steps pretraining run (`no_nsp@equal`: the end of a run as long as
the shortest; `no_nsp@first`: its first checkpoint), or fine-tuned otherwise
(`bert+last`: feature-based NER over those layers). The pseudo-task
`held_out_lm` is the held-out pretraining loss (lower is better). The papers'
tasks map to ours by level: SQuAD's token-level signal to part-of-speech
tagging and NER (and SQuAD on the gpu tier), GLUE's sentence-level tasks to
STS-B, SST-2, MRPC, word order and next-sentence choice.

Each ordering says, before anything runs, from which tier's scale published
work expects it to be visible (`testable_from`: "cpu", "gpu" or None for
none of ours) and why not below it. Orderings not testable at a tier are run
where their arms are run anyway and shown, but never tested or counted.
"""

import dataclasses

TIER_SCALE = {"tiny": 1, "cpu": 1, "cpu_long": 1, "gpu": 2}  # tiny: a pipeline check of the cpu protocol

NSP = ("next-sentence prediction is neutral or harmful in small-budget ablations (RoBERTa, SpanBERT, XLNet's "
       "own), so no sign is expected")
SUB_POINT = "the paper's gap is about a point or less, below the noise of a few seeds on task subsets"
LTR_EARLY = ("a left-to-right LM learns faster early (BERT's own steps figure: MLM converges marginally more "
             "slowly), and sentence-level gains of the masked LM need more pretraining than this tier has")
XLNET = ("XLNet's gains came with long contexts (memory, 512-token sequences) and large budgets; at short "
         "sequences and few steps there is little for them to act on")
SIZE_DOWNSTREAM = ("downstream gains of size need pretraining far past this tier's (the 24 small BERTs: 2 to 4 "
                   "layers moved SST-2 by under 3 points after a million steps)")
TABLE1 = ("the paper's GLUE average separates systems of different corpora and much larger sizes; at one size "
          "and one small corpus the Transformer's advantage over a biLSTM is not expected below the gpu tier")


@dataclasses.dataclass(frozen=True)
class Ordering:
    """`ahead` beats `behind` on `tasks`: "all", "token" or "sentence" (by the
    task's level), or one task's name; testable from the tier `testable_from`
    upwards (None: at no tier of ours), `why_not` below it."""

    ahead: str
    behind: str
    tasks: str = "all"
    higher_is_better: bool = True
    testable_from: str = "cpu"
    why_not: str = ""

    def testable_at(self, tier):
        return self.testable_from is not None and TIER_SCALE[tier] >= TIER_SCALE[self.testable_from]


@dataclasses.dataclass(frozen=True)
class PaperComparison:
    key: str
    name: str  # short, for tables
    title: str
    paper: str  # the paper's own figures and words, Markdown
    arms: tuple  # (arm, label)
    orderings: tuple
    tasks: str = "all"  # the tasks its results show: "all", "steps_task" or one task


COMPARISONS = (
    PaperComparison(
        "table5", "Table 5", "BERT Table 5: pretraining tasks (BERT-Base architecture, dev sets)",
        "| | MNLI-m | MRPC | SST-2 | SQuAD F1 |\n| --- | --- | --- | --- | --- |\n"
        "| BERT-Base | 84.4 | 86.7 | 92.7 | 88.5 |\n| No NSP | 83.9 | 86.5 | 92.6 | 87.9 |\n"
        "| LTR & No NSP | 82.1 | 77.5 | 92.1 | 77.8 |\n| + BiLSTM | 82.1 | 75.7 | 91.6 | 84.9 |",
        (("bert", "BERT (MLM + NSP)"), ("no_nsp", "No NSP"), ("ltr", "LTR & No NSP"), ("ltr_bilstm", "+ BiLSTM")),
        (Ordering("bert", "no_nsp", testable_from=None, why_not=NSP),
         Ordering("no_nsp", "ltr", "token"),
         Ordering("no_nsp", "ltr", "sentence", testable_from="gpu", why_not=LTR_EARLY),
         Ordering("ltr_bilstm", "ltr", "token"),
         Ordering("ltr", "ltr_bilstm", "sentence", testable_from=None, why_not=SUB_POINT),
         Ordering("no_nsp", "ltr_bilstm", "token"),
         Ordering("no_nsp", "ltr_bilstm", "sentence", testable_from="gpu", why_not=LTR_EARLY))),
    PaperComparison(
        "table7", "Table 7", "BERT Table 7: feature-based NER (CoNLL-2003 dev F1, BERT-Base)",
        "| layers | dev F1 |\n| --- | --- |\n| embeddings | 91.0 |\n| second-to-last hidden | 95.6 |\n"
        "| last hidden | 94.9 |\n| weighted sum of last four | 95.9 |\n| concat last four | 96.1 |\n"
        "| weighted sum of all 12 | 95.5 |\n| fine-tuning | 96.4 |\n| ELMo (for reference) | 95.7 |",
        (("bert", "fine-tuning"), ("bert+embeddings", "embeddings"), ("bert+second_to_last", "second-to-last"),
         ("bert+last", "last"), ("bert+sum_last_four", "sum of last four"),
         ("bert+concat_last_four", "concat last four"), ("bert+weighted_sum_all", "weighted sum of all"),
         ("elmo", "ELMo (its biLM's features)")),
        (Ordering("bert", "bert+concat_last_four", "ner", testable_from=None, why_not=SUB_POINT),
         Ordering("bert+concat_last_four", "bert+last", "ner", testable_from=None, why_not=SUB_POINT),
         Ordering("bert+last", "bert+embeddings", "ner"),
         Ordering("bert+concat_last_four", "bert+embeddings", "ner", testable_from="gpu",
                  why_not="the cpu tier's two layers have no last four"),
         Ordering("bert", "elmo", "ner", testable_from=None, why_not=SUB_POINT),
         Ordering("bert+concat_last_four", "elmo", "ner", testable_from=None, why_not=SUB_POINT),
         Ordering("bert", "bert+weighted_sum_all", "ner", testable_from=None, why_not=SUB_POINT),
         Ordering("bert+weighted_sum_all", "bert+embeddings", "ner")),
        tasks="ner"),
    PaperComparison(
        "table6", "Table 6", "BERT Table 6: model size at fixed steps",
        "From 3 layers of 768 to 24 of 1024, the held-out masked-LM perplexity falls and MNLI, MRPC and SST-2 "
        "rise at every step up in size: \"larger models lead to a strict accuracy improvement across all four "
        "datasets\".",
        (("bert", "BERT"), ("bert_small", "BERT, smaller")),
        (Ordering("bert", "bert_small", testable_from="gpu", why_not=SIZE_DOWNSTREAM),
         Ordering("bert", "bert_small", "held_out_lm", higher_is_better=False))),
    PaperComparison(
        "equal_steps", "Equal steps", "The equal-steps view and BERT's pretraining-steps figure",
        "The papers compare systems at equal steps; a left-to-right LM (every token predicted) and XLNet's "
        "two streams cost more per step than a masked LM, so at equal FLOPs they get fewer steps. BERT's "
        "steps figure (MNLI along pretraining): the masked LM converges marginally slower than the "
        "left-to-right LM but is ahead in absolute accuracy almost from the start.",
        (("bert@equal", "BERT"), ("no_nsp@equal", "No NSP (MLM)"), ("ltr@equal", "LTR & No NSP"),
         ("xlnet@equal", "XLNet"), ("no_nsp@first", "MLM, first checkpoint"), ("ltr@first", "LTR, first checkpoint")),
        (Ordering("no_nsp@equal", "ltr@equal"),
         Ordering("no_nsp@first", "ltr@first", testable_from=None, why_not=LTR_EARLY),
         Ordering("bert@equal", "no_nsp@equal", testable_from=None, why_not=NSP),
         Ordering("xlnet@equal", "bert@equal", testable_from=None, why_not=XLNET)),
        tasks="steps_task"),
    PaperComparison(
        "xlnet", "XLNet vs BERT", "XLNet against BERT with the same data and budget",
        "XLNet's fair comparison (same data, same hyper-parameters) and its ablation put the permutation LM "
        "ahead of BERT, with the largest gains on long-context tasks (RACE, SQuAD); its ablation table "
        "removes memory, span-based prediction and bidirectional data in turn.",
        (("xlnet", "XLNet"), ("bert", "BERT")),
        (Ordering("xlnet", "bert", testable_from=None, why_not=XLNET),)),
    PaperComparison(
        "table1", "Table 1", "BERT Table 1: ELMo < OpenAI GPT < BERT (GLUE average)",
        "GLUE average: ELMo 71.0 < OpenAI GPT 75.1 < BERT-Base 79.6.",
        (("elmo", "ELMo"), ("gpt", "OpenAI GPT"), ("bert", "BERT")),
        (Ordering("gpt", "elmo", "sentence", testable_from="gpu", why_not=TABLE1),
         Ordering("bert", "gpt", "token"),
         Ordering("bert", "gpt", "sentence", testable_from="gpu", why_not=LTR_EARLY))),
    PaperComparison(
        "floor", "Premise", "The premise: pretraining beats random initialisation",
        "Every paper's starting point: fine-tuning a pretrained model beats training the same model from scratch.",
        (("bert", "BERT"), ("xlnet", "XLNet"), ("gpt", "OpenAI GPT"), ("elmo", "ELMo"),
         ("random", "random init")),
        (Ordering("bert", "random"), Ordering("xlnet", "random"), Ordering("gpt", "random"),
         Ordering("elmo", "random"))),
)
