"""An sb3-contrib policy for ``action_features`` observations: one small network scores every action.

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib); nothing else in tabletris
imports this module, so the core package never needs torch.

``MaskablePPO(ActionScorePolicy, env)`` on ``DiceEnv(action_features=True)`` (any observation
Dict with an ``action_features`` entry of shape ``(n_actions, k)`` and an ``observation`` entry):

- the logit of action ``a`` is ``scorer(action_features[a])``, one MLP (``score_arch``) shared
  by every action, so what the policy learns about one placement holds for all of them; illegal
  actions are masked by ``MaskablePPO`` as usual (their rows are zeros and never sampled);
- the value is an MLP (``value_arch``) on the flat ``observation`` joined with the scorer's last
  hidden layer max-pooled over the legal actions (what the best options look like).

This is the afterstate policy of Tetris learning (see ``tabletris.envs.afterstates``) in PPO form.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from tabletris.envs.afterstates import KEY


def _mlp(sizes: Sequence[int], activation: type[nn.Module]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes, sizes[1:], strict=False):
        layers += [nn.Linear(a, b), activation()]
    return nn.Sequential(*layers)


class ActionFeaturesExtractor(BaseFeaturesExtractor):
    """Passes the two entries on, flattened side by side: ``(batch, n_actions * k + obs)``
    (sb3's policies want one tensor between the extractor and the heads)."""

    def __init__(self, observation_space: spaces.Dict) -> None:
        feats = observation_space[KEY]
        obs = observation_space["observation"]
        assert feats.shape is not None and obs.shape is not None
        self.n_actions, self.k = int(feats.shape[0]), int(feats.shape[1])
        self.obs_size = int(np.prod(obs.shape))
        super().__init__(observation_space, features_dim=self.n_actions * self.k + self.obs_size)

    def forward(self, observations: dict[str, th.Tensor]) -> th.Tensor:
        feats = observations[KEY].flatten(1)
        obs = observations["observation"].flatten(1)
        return th.cat([feats, obs], dim=1)


class ScoreAndValue(nn.Module):
    """The heads behind the extractor: per-action scores (``latent_dim_pi = n_actions``, used as
    the logits as they are) and the value's hidden layer (``latent_dim_vf``)."""

    def __init__(
        self, n_actions: int, k: int, obs_size: int, score_arch: Sequence[int],
        value_arch: Sequence[int], activation: type[nn.Module],
    ) -> None:
        super().__init__()
        self.n_actions, self.k, self.obs_size = n_actions, k, obs_size
        self.scorer_hidden = _mlp([k, *score_arch], activation)
        self.scorer_out = nn.Linear(score_arch[-1] if score_arch else k, 1)
        self.value = _mlp([obs_size + (score_arch[-1] if score_arch else k), *value_arch], activation)
        self.latent_dim_pi = n_actions
        self.latent_dim_vf = value_arch[-1] if value_arch else obs_size + self.scorer_out.in_features

    def _split(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        split = self.n_actions * self.k
        return features[:, :split].reshape(-1, self.n_actions, self.k), features[:, split:]

    def _both(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """Scores and value input, the scorer run on the legal rows only (an illegal id's row
        is all zeros; a few dozen of 3399 ids are legal at a time, so this is most of the cost)."""
        feats, obs = self._split(features)
        batch = feats.shape[0]
        rows, ids = th.nonzero(feats.abs().sum(-1) > 0, as_tuple=True)
        hidden = self.scorer_hidden(feats[rows, ids])
        logits = features.new_zeros(batch, self.n_actions)
        logits = logits.index_put((rows, ids), self.scorer_out(hidden).squeeze(-1))
        pooled = features.new_full((batch, hidden.shape[1]), -th.inf)
        pooled = pooled.scatter_reduce(0, rows[:, None].expand_as(hidden), hidden, "amax")
        pooled = th.where(th.isinf(pooled), th.zeros_like(pooled), pooled)  # nothing legal: game over
        return logits, self.value(th.cat([obs, pooled], dim=1))

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self._both(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return self._both(features)[0]

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self._both(features)[1]


class ActionScorePolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with the per-action scorer (module docstring).

    ``policy_kwargs``: ``score_arch`` (the scorer's hidden sizes, default ``[32, 32]``) and
    ``value_arch`` (default ``[64, 64]``); ``net_arch`` is not used.
    """

    def __init__(
        self, observation_space: spaces.Dict, action_space: spaces.Discrete, lr_schedule: Any,
        score_arch: Sequence[int] = (32, 32), value_arch: Sequence[int] = (64, 64), **kwargs: Any,
    ) -> None:
        self.score_arch = list(score_arch)
        self.value_arch = list(value_arch)
        kwargs.setdefault("features_extractor_class", ActionFeaturesExtractor)
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(score_arch=self.score_arch, value_arch=self.value_arch)
        return data

    def _build_mlp_extractor(self) -> None:
        ext = self.features_extractor
        assert isinstance(ext, ActionFeaturesExtractor)
        self.mlp_extractor = ScoreAndValue(  # type: ignore[assignment]
            ext.n_actions, ext.k, ext.obs_size, self.score_arch, self.value_arch, self.activation_fn,
        ).to(self.device)

    def _build(self, lr_schedule: Any) -> None:
        """sb3's ``_build`` with the scores as the logits: no ``Linear(n_actions, n_actions)``."""
        self._build_mlp_extractor()
        self.action_net = nn.Identity()
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        if self.ortho_init:
            heads: ScoreAndValue = self.mlp_extractor  # type: ignore[assignment]
            for module, gain in (
                (heads.scorer_hidden, np.sqrt(2)), (heads.value, np.sqrt(2)),
                (heads.scorer_out, 0.01), (self.value_net, 1.0),
            ):
                module.apply(partial(self.init_weights, gain=gain))
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )
