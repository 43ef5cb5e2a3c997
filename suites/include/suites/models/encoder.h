#pragma once
// The encoder family (BERT, RoBERTa) over plain ATen ops, for the embed
// suite: post-LayerNorm blocks, exact GELU, bidirectional attention, mean
// pooling over the sequence (prompts in one batch have equal lengths, so no
// padding mask). Same code on the CPU (fp32) and the device (fp16).
//
//   EncoderModel m(config, weights, DeviceUnderTest(), at::kHalf);
//   at::Tensor pooled = m.Embed(tokens);   // [B, S] -> [B, hidden]
#include <ATen/ATen.h>
#include <c10/core/Device.h>

#include "suites/models/checkpoint.h"
#include "suites/models/model_config.h"

namespace suites {

class EncoderModel {
 public:
  EncoderModel(const ModelConfig& config, const Weights& weights, c10::Device device,
               at::ScalarType dtype);
  // tokens [B, S] int64 (any device), S + position_offset <= max_positions.
  // Returns the mean-pooled last hidden state [B, hidden] on the model device.
  at::Tensor Embed(const at::Tensor& tokens) const;

 private:
  ModelConfig config_;
  c10::Device device_;
  std::map<std::string, at::Tensor> w_;  // linear weights transposed to [in, out]
};

}  // namespace suites
