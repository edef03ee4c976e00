"""Tensor- and data-parallel training of a transformer block with PyTorch
(torch.distributed, gloo) and rndnn (docs/distributed.md, "PyTorch").

    torchrun --standalone --nproc_per_node=K examples/torch_parallel.py \\
        [--tp T] [--steps N] [--seed S] [--save CKPT] [--resume CKPT] \\
        [--dump DIR]

(or /usr/bin/python3 -m torch.distributed.run ...). K = T x D ranks: T
tensor-parallel ranks (--tp) in each of D data-parallel groups (--dp, by
default K / T). Rank r is tensor rank r % T of data group r // T.

The model, pre-LN: x + drop(attn(ln1(x))), then + drop(mlp(ln2(x))),
attention with dropout on its probabilities (softmax and dropout fused:
rndnn.torch.softmax_dropout), the loss mean((y - target)^2)
over the global batch, trained by plain SGD. Megatron's layout: the QKV
and MLP-up linears are column-parallel (a tensor rank holds a block of the
heads and of the hidden units), attention-out and MLP-down row-parallel
(their partial products summed by an all-reduce over the tensor group);
each data group holds a block of the batch, and the gradients are summed
over the data groups.

rndnn makes the randomness independent of the layout: each weight is
filled by rndnn.torch.init with its block of the global weight
(shard=(global shape, origin)), each dropout draws its block of the global
mask (attention dropout: the rank's batch and head block of [batch, heads,
seq, seq]; residual dropout: its batch block of [batch, seq, hidden], the
same on the tensor ranks of a group). All of them draw from ONE
rndnn.Generator, equal on every rank and moved on by the global counts:
the initial weights and every mask are the one-process ones bit for bit,
on any K, and the whole random state of training is its 16 bytes. The data
of step t are rndnn.normal's at (seed, stream 1 and 2, offset t x count).

--save CKPT (rank 0) writes the gathered full weights, the step and the
generator's 16 bytes (plain SGD keeps no optimizer state): --resume CKPT
re-shards them onto any layout and continues the same masks. --dump DIR
(rank 0) writes init.npz and final.npz (the gathered weights), masks.npz
(every step's global keep masks, stepN_NAME) and losses.npy ((step, loss)
rows), which python/tests/test_torch_parallel.py compares across layouts.
"""
import argparse
import datetime
import math
import os
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F

import rndnn
import rndnn.torch as rt
from rndnn.torch import init


def arguments():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--tp", type=int, default=1, help="tensor-parallel ranks")
    a.add_argument("--dp", type=int, default=None,
                   help="data-parallel groups (default: world size / tp)")
    a.add_argument("--steps", type=int, default=3,
                   help="train until this step (a resumed run goes on from "
                        "its checkpoint's)")
    a.add_argument("--seed", type=int, default=2024)
    a.add_argument("--batch", type=int, default=4)
    a.add_argument("--seq", type=int, default=8)
    a.add_argument("--hidden", type=int, default=16)
    a.add_argument("--heads", type=int, default=4)
    a.add_argument("--ffn", type=int, default=None,
                   help="MLP hidden units (default 4 x hidden)")
    a.add_argument("--p", type=float, default=0.2, help="dropout probability")
    a.add_argument("--lr", type=float, default=0.1)
    a.add_argument("--save", help="checkpoint written at the end")
    a.add_argument("--resume", help="checkpoint to go on from")
    a.add_argument("--dump", help="directory for the gathered tensors")
    args = a.parse_args()
    args.ffn = args.ffn or 4 * args.hidden
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if args.tp < 1 or world % args.tp:
        a.error(f"--tp {args.tp} does not divide the world size {world}")
    args.dp = args.dp or world // args.tp
    if args.tp * args.dp != world:
        a.error(f"--tp {args.tp} x --dp {args.dp} is not the world size "
                f"{world}")
    for n, what, k, by in ((args.batch, "--batch", args.dp, "--dp"),
                           (args.heads, "--heads", args.tp, "--tp"),
                           (args.ffn, "--ffn", args.tp, "--tp")):
        if n % k:
            a.error(f"{what} {n} is not a multiple of {by} {k}")
    if args.hidden % args.heads:
        a.error(f"--hidden {args.hidden} is not a multiple of --heads "
                f"{args.heads}")
    return args


class Layout:
    """This rank's place: tensor rank t of T, data group d of D, and the
    process groups of its tensor ranks and of its data peers."""

    def __init__(self, tp, dp):
        self.rank = dist.get_rank()
        self.T, self.D = tp, dp
        self.t, self.d = self.rank % tp, self.rank // tp
        # Every rank creates every group, in one order (new_group's rule).
        for d in range(dp):
            g = dist.new_group([d * tp + t for t in range(tp)])
            if d == self.d:
                self.tp_group = g
        for t in range(tp):
            g = dist.new_group([d * tp + t for d in range(dp)])
            if t == self.t:
                self.dp_group = g


class CopyToTP(torch.autograd.Function):
    """The input of a column-parallel linear: the same on every tensor
    rank forward; backward, the sum of the ranks' partial gradients."""

    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return x.view_as(x)

    @staticmethod
    def backward(ctx, dy):
        dy = dy.contiguous().clone()
        dist.all_reduce(dy, group=ctx.group)
        return dy, None


class ReduceFromTP(torch.autograd.Function):
    """The output of a row-parallel linear: the sum of the tensor ranks'
    partial products; backward, the gradient as it is on every rank."""

    @staticmethod
    def forward(ctx, x, group):
        y = x.contiguous().clone()
        dist.all_reduce(y, group=group)
        return y

    @staticmethod
    def backward(ctx, dy):
        return dy, None


class SoftmaxDropout(torch.nn.Module):
    """dropout(softmax(scores)) along the last dim, fused
    (rndnn.torch.softmax_dropout): the rank's block of whole rows of the
    global [batch, heads, seq, seq] probabilities, its mask that block of
    the global mask (rndnn.dropout's of the same shape and draw)."""

    def __init__(self, p, generator, shard):
        super().__init__()
        self.p, self.generator, self.shard = p, generator, shard

    def forward(self, scores):
        return rt.softmax_dropout(scores, self.p, self.training,
                                  generator=self.generator, shard=self.shard)


class Block(torch.nn.Module):
    """A pre-LN transformer block holding this rank's shards. shards:
    {parameter name: (global shape, origin)}."""

    def __init__(self, args, layout, rng, fill):
        super().__init__()
        B, S, H, nh, FF = (args.batch, args.seq, args.hidden, args.heads,
                           args.ffn)
        T, t, d = layout.T, layout.t, layout.d
        self.layout = layout
        self.nh, self.dh = nh // T, H // nh  # this rank's heads, head size
        hl, fl, bl = H // T, FF // T, B // layout.D
        self.shards = {}

        def param(name, global_shape, block, origin, how):
            p = torch.nn.Parameter(torch.empty(block))
            if fill:
                how(p, (global_shape, origin))
            self.shards[name] = (tuple(global_shape), tuple(origin))
            self.register_parameter(name, p)

        def ones(p, shard):
            torch.nn.init.ones_(p)

        def zeros(p, shard):
            torch.nn.init.zeros_(p)

        def weight(p, shard):  # torch.nn.Linear's, of the global weight
            init.kaiming_uniform_(p, a=math.sqrt(5), generator=rng,
                                  shard=shard)

        def bias(fan_in):
            bound = 1 / math.sqrt(fan_in)
            return lambda p, shard: init.uniform_(
                p, -bound, bound, generator=rng, shard=shard)

        # In one order on every rank: each fill moves rng on by the global
        # count, so every rank fills its block from the same offset.
        param("ln1_w", (H,), (H,), (0,), ones)
        param("ln1_b", (H,), (H,), (0,), zeros)
        for n in "qkv":  # column-parallel: rows [t hl, (t + 1) hl)
            param(f"w{n}", (H, H), (hl, H), (t * hl, 0), weight)
            param(f"b{n}", (H,), (hl,), (t * hl,), bias(H))
        param("wo", (H, H), (H, hl), (0, t * hl), weight)  # row-parallel
        param("bo", (H,), (H,), (0,), bias(H))  # after the sum: whole
        param("ln2_w", (H,), (H,), (0,), ones)
        param("ln2_b", (H,), (H,), (0,), zeros)
        param("w1", (FF, H), (fl, H), (t * fl, 0), weight)
        param("b1", (FF,), (fl,), (t * fl,), bias(H))
        param("w2", (H, FF), (H, fl), (0, t * fl), weight)
        param("b2", (H,), (H,), (0,), bias(FF))

        # The dropouts: each the rank's block of its global tensor.
        self.attn_drop = SoftmaxDropout(args.p, generator=rng, shard=(
            (B, nh, S, S), (d * bl, t * self.nh, 0, 0)))
        residual = ((B, S, H), (d * bl, 0, 0))
        self.drop1 = rt.Dropout(args.p, generator=rng, shard=residual)
        self.drop2 = rt.Dropout(args.p, generator=rng, shard=residual)

    def forward(self, x):
        tp = self.layout.tp_group
        b, s, H = x.shape
        h = CopyToTP.apply(F.layer_norm(x, (H,), self.ln1_w, self.ln1_b), tp)
        q, k, v = (F.linear(h, getattr(self, f"w{n}"), getattr(self, f"b{n}"))
                   .view(b, s, self.nh, self.dh).transpose(1, 2)
                   for n in "qkv")
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.dh)
        ctx = (self.attn_drop(scores) @ v).transpose(1, 2).reshape(b, s, -1)
        a = ReduceFromTP.apply(F.linear(ctx, self.wo), tp) + self.bo
        x = x + self.drop1(a)
        h = CopyToTP.apply(F.layer_norm(x, (H,), self.ln2_w, self.ln2_b), tp)
        m = ReduceFromTP.apply(F.linear(F.gelu(F.linear(h, self.w1, self.b1)),
                                        self.w2), tp) + self.b2
        return x + self.drop2(m)


def index(global_shape, origin, shape):
    return tuple(slice(o, o + n) for o, n in zip(origin, shape))


def gather(block, global_shape, origin):
    """Rank 0: the global array assembled from every rank's block (the
    blocks that several ranks hold checked equal); other ranks: None."""
    blocks = [None] * dist.get_world_size() if dist.get_rank() == 0 else None
    dist.gather_object((np.asarray(block), tuple(origin)), blocks, dst=0)
    if blocks is None:
        return None
    whole = np.zeros(global_shape, blocks[0][0].dtype)
    seen = np.zeros(global_shape, bool)
    for r, (a, o) in enumerate(blocks):
        at = index(global_shape, o, a.shape)
        if not np.array_equal(whole[at][seen[at]], a[seen[at]]):
            raise RuntimeError(f"rank {r}'s block at {o} differs from the "
                               "same block of another rank")
        whole[at], seen[at] = a, True
    if not seen.all():
        raise RuntimeError(f"the blocks do not cover {global_shape}")
    return whole


def gather_weights(model):
    return {name: gather(p.detach().numpy(), *model.shards[name])
            for name, p in model.named_parameters()}


def main():
    args = arguments()
    dist.init_process_group("gloo",
                            timeout=datetime.timedelta(seconds=60))
    layout = Layout(args.tp, args.dp)
    rank0 = layout.rank == 0
    B, S, H = args.batch, args.seq, args.hidden
    bl = B // layout.D
    step = 0
    if args.resume:
        ckpt = torch.load(args.resume)
        for k in ("batch", "seq", "hidden", "heads", "ffn", "p", "seed"):
            if ckpt["config"][k] != getattr(args, k):
                sys.exit(f"--{k} {getattr(args, k)} differs from the "
                         f"checkpoint's {ckpt['config'][k]}")
        rng = rndnn.Generator.load(ckpt["generator"])
        step = ckpt["step"]
    else:
        rng = rndnn.Generator(args.seed, 0)
    model = Block(args, layout, rng, fill=not args.resume)
    if args.resume:  # this rank's blocks of the full weights
        with torch.no_grad():
            for name, p in model.named_parameters():
                full = torch.as_tensor(ckpt["weights"][name])
                p.copy_(full[index(*model.shards[name], p.shape)])
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)

    dump = args.dump and rank0
    if args.dump:
        weights = gather_weights(model)
        if dump:
            os.makedirs(args.dump, exist_ok=True)
            np.savez(os.path.join(args.dump, "init.npz"), **weights)
    # Each dropout's generator state before its call, to rebuild its mask.
    drops = {"attn": model.attn_drop, "drop1": model.drop1,
             "drop2": model.drop2}
    states = {}

    def remember(name):
        def hook(module, inputs):
            states[name] = (rng.save(), tuple(inputs[0].shape))
        return hook

    for name, m in drops.items():
        m.register_forward_pre_hook(remember(name))
    masks, losses = {}, []
    n = B * S * H
    origin = (layout.d * bl, 0, 0)
    while step < args.steps:
        x, target = (rndnn.normal(size=(bl, S, H), seed=args.seed,
                                  stream=stream, offset=step * n,
                                  global_shape=(B, S, H), origin=origin,
                                  dtype=torch.float32) for stream in (1, 2))
        opt.zero_grad()
        y = model(x)
        loss = ((y - target) ** 2).sum() / n
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad, group=layout.dp_group)
        opt.step()
        total = torch.tensor([loss.item()], dtype=torch.float64)
        dist.all_reduce(total, group=layout.dp_group)
        losses.append((step, total.item()))
        if args.dump:
            for name, m in drops.items():
                state, shape = states[name]
                keep, _ = rndnn.dropout(
                    torch.ones(shape), m.p, mask=None,
                    generator=rndnn.Generator.load(state),
                    global_shape=m.shard[0], origin=m.shard[1])
                masks[f"step{step}_{name}"] = gather(
                    (keep != 0).numpy(), *m.shard)
        if rank0:
            print(f"step {step} loss {total.item():.9g}", flush=True)
        step += 1

    weights = gather_weights(model) if args.dump or args.save else None
    if dump:
        np.savez(os.path.join(args.dump, "final.npz"), **weights)
        np.savez(os.path.join(args.dump, "masks.npz"), **masks)
        np.save(os.path.join(args.dump, "losses.npy"), np.array(losses))
    if args.save and rank0:
        torch.save({"step": step, "generator": rng.save(),
                    "weights": weights,
                    "config": {k: getattr(args, k) for k in (
                        "batch", "seq", "hidden", "heads", "ffn", "p",
                        "seed")}}, args.save)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
