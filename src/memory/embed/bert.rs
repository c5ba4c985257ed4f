//! The transformer provider: a BERT sentence encoder (all-MiniLM-L6-v2, the
//! model `pms embeddings install` installs, or another BERT checkpoint with
//! mean or CLS pooling) run in process.
//!
//! A static model averages one fixed vector per word, so "how do we keep the
//! cluster from running out of memory" and a note about pod resource limits
//! share little; a transformer reads the words in context. On the notes'
//! paraphrase queries of the long-memory set it is what lifts recall (see
//! docs/architecture.md, Search).
//!
//! The forward pass is written here (about 200 lines) rather than taken from
//! candle: candle-core 0.11 brings a second `tokenizers` (0.23, model2vec-rs
//! uses 0.21) and candle-transformers alone added 3 minutes to a clean build
//! and 2.5 MB to the binary (/work/scratch/research-models.md). What a BERT
//! encoder needs is five matrix products per layer, a layer norm, a softmax
//! and GELU; the products go to `matrixmultiply`'s sgemm (pure Rust, picks
//! its AVX/FMA kernels at run time). Every buffer is allocated once per
//! thread and reused, since fresh tensors per operation made glibc map and
//! unmap pages: a 38% throughput loss in candle.
//!
//! Weights are read from `model.safetensors` in place (memory-mapped, f32),
//! so loading costs a few milliseconds plus the tokenizer; the embedding
//! rows a query does not use are never read from disk.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use serde::Deserialize;
use tokenizers::{Tokenizer, TruncationParams};

use super::{EmbedError, Embedder};

/// Tokens read per text. sentence-transformers' `max_seq_length` of
/// all-MiniLM-L6-v2 (its tokenizer.json says 128, which sentence-transformers
/// ignores); a knowledge chunk of 1,200 characters is about 280 tokens.
const DEFAULT_MAX_TOKENS: usize = 256;

/// `config.json` of a BERT checkpoint (Hugging Face `BertConfig`).
#[derive(Debug, Clone, Deserialize)]
struct Config {
    hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    max_position_embeddings: usize,
    #[serde(default = "default_eps")]
    layer_norm_eps: f32,
    #[serde(default)]
    hidden_act: Option<String>,
}

fn default_eps() -> f32 {
    1e-12
}

/// Whether `dir` holds a BERT checkpoint (rather than a Model2Vec model):
/// its config.json names `BertModel` or `model_type: "bert"`.
pub fn is_bert(dir: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(dir.join("config.json")) else {
        return false;
    };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
        return false;
    };
    v.get("model_type").and_then(|t| t.as_str()) == Some("bert")
        || v.get("architectures")
            .and_then(|a| a.as_array())
            .is_some_and(|a| a.iter().any(|x| x.as_str() == Some("BertModel")))
}

/// How token vectors become one text vector (`1_Pooling/config.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// The average over the tokens (all-MiniLM-L6-v2, e5).
    Mean,
    /// The first token's vector (bge).
    Cls,
}

fn pooling_of(dir: &Path) -> Pooling {
    let v: Option<serde_json::Value> = std::fs::read_to_string(dir.join("1_Pooling/config.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    match v {
        Some(v) if v.get("pooling_mode_cls_token").and_then(|b| b.as_bool()) == Some(true) => {
            Pooling::Cls
        }
        _ => Pooling::Mean,
    }
}

fn max_tokens_of(dir: &Path, cfg: &Config) -> usize {
    std::fs::read_to_string(dir.join("sentence_bert_config.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v.get("max_seq_length").and_then(|m| m.as_u64()))
        .map_or(DEFAULT_MAX_TOKENS, |m| m as usize)
        .min(cfg.max_position_embeddings)
}

/// Where one tensor's floats are in [`Storage`].
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    len: usize,
}

/// The checkpoint's floats: the file mapped (when its data is 4-byte
/// aligned, as safetensors files written by torch are) or copied.
enum Storage {
    Mapped { map: memmap2::Mmap, base: usize },
    Owned(Vec<f32>),
}

impl Storage {
    fn get(&self, s: Span) -> &[f32] {
        match self {
            Storage::Mapped { map, base } => {
                let bytes = &map[base + s.start * 4..base + (s.start + s.len) * 4];
                // SAFETY: alignment to 4 and little-endian order were
                // checked when the storage was chosen; any bit pattern is
                // a valid f32.
                unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<f32>(), s.len) }
            }
            Storage::Owned(v) => &v[s.start..s.start + s.len],
        }
    }
}

struct Layer {
    q: (Span, Span),
    k: (Span, Span),
    v: (Span, Span),
    attn_out: (Span, Span),
    attn_norm: (Span, Span),
    inter: (Span, Span),
    out: (Span, Span),
    out_norm: (Span, Span),
}

struct Weights {
    storage: Storage,
    word: Span,
    position: Span,
    token_type: Span,
    emb_norm: (Span, Span),
    layers: Vec<Layer>,
}

pub struct Bert {
    cfg: Config,
    weights: Weights,
    tokenizer: Tokenizer,
    pooling: Pooling,
    max_tokens: usize,
    threads: usize,
    id: String,
    /// How long loading took, for `pms embeddings` and the benchmarks.
    pub load_ms: u128,
}

fn load_error(path: &Path, cause: impl std::fmt::Display) -> EmbedError {
    EmbedError::Load {
        path: path.to_path_buf(),
        cause: cause.to_string(),
    }
}

/// A safetensors header: tensor name → (dtype, shape, byte range in the
/// data section).
type Tensors = HashMap<String, (String, Vec<usize>, [usize; 2])>;

/// The tensors of a safetensors file: name → (dtype, shape, byte range in
/// the data section), and where the data section starts.
fn read_header(bytes: &[u8], path: &Path) -> Result<(Tensors, usize), EmbedError> {
    #[derive(Deserialize)]
    struct Entry {
        dtype: String,
        shape: Vec<usize>,
        data_offsets: [usize; 2],
    }
    let n = bytes
        .get(..8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")) as usize)
        .ok_or_else(|| load_error(path, "shorter than a safetensors header"))?;
    let header = bytes
        .get(8..8usize.saturating_add(n))
        .ok_or_else(|| load_error(path, "its header runs past the end of the file"))?;
    let raw: HashMap<String, serde_json::Value> = serde_json::from_slice(header)
        .map_err(|e| load_error(path, format!("its header is not JSON: {e}")))?;
    let mut out = HashMap::new();
    for (name, v) in raw {
        if name == "__metadata__" {
            continue;
        }
        let e: Entry = serde_json::from_value(v)
            .map_err(|e| load_error(path, format!("tensor {name}: {e}")))?;
        out.insert(name, (e.dtype, e.shape, e.data_offsets));
    }
    Ok((out, 8 + n))
}

impl Bert {
    pub fn load(dir: &Path, name: &str) -> Result<Bert, EmbedError> {
        let started = Instant::now();
        let cfg_path = dir.join("config.json");
        let cfg: Config = std::fs::read_to_string(&cfg_path)
            .map_err(|e| load_error(&cfg_path, e))
            .and_then(|t| serde_json::from_str(&t).map_err(|e| load_error(&cfg_path, e)))?;
        if cfg.num_attention_heads == 0 || !cfg.hidden_size.is_multiple_of(cfg.num_attention_heads)
        {
            return Err(load_error(
                &cfg_path,
                "hidden_size is not a multiple of num_attention_heads",
            ));
        }
        if let Some(act) = cfg.hidden_act.as_deref()
            && act != "gelu"
        {
            return Err(load_error(
                &cfg_path,
                format!("hidden_act {act:?}: pms runs BERT models with \"gelu\""),
            ));
        }
        let weights = load_weights(&dir.join("model.safetensors"), &cfg)?;
        let tok_path = dir.join("tokenizer.json");
        let mut tokenizer =
            Tokenizer::from_file(&tok_path).map_err(|e| load_error(&tok_path, e))?;
        let max_tokens = max_tokens_of(dir, &cfg);
        // all-MiniLM-L6-v2's tokenizer.json truncates and pads to 128:
        // sentence-transformers ignores both, and so does pms (one text at a
        // time needs no padding).
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_tokens,
                ..Default::default()
            }))
            .map_err(|e| load_error(&tok_path, e))?;
        tokenizer.with_padding(None);
        let pooling = pooling_of(dir);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        Ok(Bert {
            id: format!("bert:{name}:{}", cfg.hidden_size),
            cfg,
            weights,
            tokenizer,
            pooling,
            max_tokens,
            threads,
            load_ms: started.elapsed().as_millis(),
        })
    }

    pub fn dim(&self) -> usize {
        self.cfg.hidden_size
    }

    /// Texts are spread over this many threads (default: every CPU).
    pub fn set_threads(&mut self, n: usize) {
        self.threads = n.max(1);
    }

    /// The token ids of `text`, [CLS] … [SEP], cut at the model's length.
    fn tokens(&self, text: &str) -> Result<Vec<u32>, EmbedError> {
        let enc = self
            .tokenizer
            .encode(text, true)
            .map_err(|e| EmbedError::Install(format!("tokenizing failed: {e}")))?;
        let mut ids = enc.get_ids().to_vec();
        ids.truncate(self.max_tokens);
        Ok(ids)
    }

    /// One text's unit vector, with `s` as scratch space.
    fn encode(&self, ids: &[u32], s: &mut Scratch) -> Vec<f32> {
        let h = self.cfg.hidden_size;
        let n = ids.len();
        let w = &self.weights;
        let st = &w.storage;
        s.resize(n, h, self.cfg.intermediate_size);
        // embeddings: word + position + token type 0, normalised
        let (word, pos, ty) = (st.get(w.word), st.get(w.position), st.get(w.token_type));
        for (t, &id) in ids.iter().enumerate() {
            let row = &mut s.x[t * h..(t + 1) * h];
            let id = (id as usize).min(word.len() / h - 1);
            let wr = &word[id * h..(id + 1) * h];
            let pr = &pos[t * h..(t + 1) * h];
            for i in 0..h {
                row[i] = wr[i] + pr[i] + ty[i];
            }
        }
        layer_norm(
            &mut s.x,
            h,
            st.get(w.emb_norm.0),
            st.get(w.emb_norm.1),
            self.cfg.layer_norm_eps,
        );
        let heads = self.cfg.num_attention_heads;
        let d = h / heads;
        let scale = 1.0 / (d as f32).sqrt();
        for l in &w.layers {
            linear(&s.x, n, h, st, l.q, h, &mut s.q);
            linear(&s.x, n, h, st, l.k, h, &mut s.k);
            linear(&s.x, n, h, st, l.v, h, &mut s.v);
            for head in 0..heads {
                let off = head * d;
                // scores = q_h k_h^T / sqrt(d)
                // SAFETY: every pointer and stride below stays inside its
                // buffer: q, k, v and ctx are n × h, scores n × n.
                unsafe {
                    matrixmultiply::sgemm(
                        n,
                        d,
                        n,
                        scale,
                        s.q.as_ptr().add(off),
                        h as isize,
                        1,
                        s.k.as_ptr().add(off),
                        1,
                        h as isize,
                        0.0,
                        s.scores.as_mut_ptr(),
                        n as isize,
                        1,
                    );
                }
                for row in s.scores.chunks_exact_mut(n) {
                    softmax(row);
                }
                // ctx_h = scores v_h
                unsafe {
                    matrixmultiply::sgemm(
                        n,
                        n,
                        d,
                        1.0,
                        s.scores.as_ptr(),
                        n as isize,
                        1,
                        s.v.as_ptr().add(off),
                        h as isize,
                        1,
                        0.0,
                        s.ctx.as_mut_ptr().add(off),
                        h as isize,
                        1,
                    );
                }
            }
            linear(&s.ctx, n, h, st, l.attn_out, h, &mut s.q);
            for (x, a) in s.x.iter_mut().zip(&s.q) {
                *x += a;
            }
            layer_norm(
                &mut s.x,
                h,
                st.get(l.attn_norm.0),
                st.get(l.attn_norm.1),
                self.cfg.layer_norm_eps,
            );
            let inter = self.cfg.intermediate_size;
            linear(&s.x, n, h, st, l.inter, inter, &mut s.inter);
            for v in s.inter.iter_mut() {
                *v = gelu(*v);
            }
            linear(&s.inter, n, inter, st, l.out, h, &mut s.q);
            for (x, a) in s.x.iter_mut().zip(&s.q) {
                *x += a;
            }
            layer_norm(
                &mut s.x,
                h,
                st.get(l.out_norm.0),
                st.get(l.out_norm.1),
                self.cfg.layer_norm_eps,
            );
        }
        let mut v = match self.pooling {
            Pooling::Cls => s.x[..h].to_vec(),
            Pooling::Mean => {
                let mut v = vec![0f32; h];
                for row in s.x.chunks_exact(h) {
                    for (a, b) in v.iter_mut().zip(row) {
                        *a += b;
                    }
                }
                v.iter_mut().for_each(|a| *a /= n.max(1) as f32);
                v
            }
        };
        super::normalise(&mut v);
        v
    }
}

impl Embedder for Bert {
    fn id(&self) -> &str {
        &self.id
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let ids: Vec<Vec<u32>> = texts
            .iter()
            .map(|t| self.tokens(t))
            .collect::<Result<_, _>>()?;
        let threads = self.threads.min(texts.len()).max(1);
        if threads == 1 {
            let mut s = Scratch::default();
            return Ok(ids.iter().map(|t| self.encode(t, &mut s)).collect());
        }
        // Texts dealt out longest first to whichever thread is free, so one
        // long chunk does not leave the other threads idle at the end.
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(ids[i].len()));
        let next = std::sync::atomic::AtomicUsize::new(0);
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); ids.len()];
        let results: Vec<Vec<(usize, Vec<f32>)>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        let mut s = Scratch::default();
                        let mut done = Vec::new();
                        loop {
                            let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(&i) = order.get(k) else { break };
                            done.push((i, self.encode(&ids[i], &mut s)));
                        }
                        done
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("an encoder thread panicked"))
                .collect()
        });
        for (i, v) in results.into_iter().flatten() {
            out[i] = v;
        }
        Ok(out)
    }
}

/// Buffers one thread reuses for every text.
#[derive(Default)]
struct Scratch {
    x: Vec<f32>,
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    ctx: Vec<f32>,
    scores: Vec<f32>,
    inter: Vec<f32>,
}

impl Scratch {
    fn resize(&mut self, n: usize, h: usize, inter: usize) {
        for b in [
            &mut self.x,
            &mut self.q,
            &mut self.k,
            &mut self.v,
            &mut self.ctx,
        ] {
            b.resize(n * h, 0.0);
        }
        self.scores.resize(n * n, 0.0);
        self.inter.resize(n * inter, 0.0);
    }
}

/// `out[n × out_dim] = x[n × in_dim] · Wᵀ + b`, W stored `[out_dim, in_dim]`
/// as torch stores a Linear.
fn linear(
    x: &[f32],
    n: usize,
    in_dim: usize,
    st: &Storage,
    (w, b): (Span, Span),
    out_dim: usize,
    out: &mut [f32],
) {
    let (w, b) = (st.get(w), st.get(b));
    debug_assert_eq!(w.len(), in_dim * out_dim);
    for row in out[..n * out_dim].chunks_exact_mut(out_dim) {
        row.copy_from_slice(b);
    }
    // SAFETY: x is n × in_dim, W out_dim × in_dim (read transposed through
    // its strides), out n × out_dim: the sizes were checked at load.
    unsafe {
        matrixmultiply::sgemm(
            n,
            in_dim,
            out_dim,
            1.0,
            x.as_ptr(),
            in_dim as isize,
            1,
            w.as_ptr(),
            1,
            in_dim as isize,
            1.0,
            out.as_mut_ptr(),
            out_dim as isize,
            1,
        );
    }
}

fn layer_norm(x: &mut [f32], h: usize, gamma: &[f32], beta: &[f32], eps: f32) {
    for row in x.chunks_exact_mut(h) {
        let mean = row.iter().sum::<f32>() / h as f32;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for i in 0..h {
            row[i] = (row[i] - mean) * inv * gamma[i] + beta[i];
        }
    }
}

fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in row.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    let inv = 1.0 / sum;
    row.iter_mut().for_each(|v| *v *= inv);
}

/// GELU as BERT defines it, `x Φ(x)` with the exact error function.
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// The error function (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7:
/// below f32's own rounding at the values GELU sees).
fn erf(x: f32) -> f32 {
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let x = x.abs() as f64;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    sign * y as f32
}

/// Maps `path` and finds every tensor the encoder needs, with its shape
/// checked against `cfg`.
fn load_weights(path: &Path, cfg: &Config) -> Result<Weights, EmbedError> {
    let file = std::fs::File::open(path).map_err(|e| load_error(path, e))?;
    // SAFETY: the model folder is pms's own (installed by `pms embeddings
    // install`, never rewritten in place: a new install renames a new
    // folder into place), so the file does not change while mapped.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| load_error(path, e))?;
    let (tensors, data_start) = read_header(&map, path)?;
    let prefix = if tensors.contains_key("bert.embeddings.word_embeddings.weight") {
        "bert."
    } else {
        ""
    };
    let data_len = map.len().saturating_sub(data_start);
    let span = |name: &str, shape: &[usize]| -> Result<Span, EmbedError> {
        let full = format!("{prefix}{name}");
        let (dtype, found, [a, b]) = tensors
            .get(&full)
            .ok_or_else(|| load_error(path, format!("no tensor {full}")))?;
        if dtype != "F32" {
            return Err(load_error(
                path,
                format!("tensor {full} is {dtype}: pms reads F32 checkpoints"),
            ));
        }
        if found.as_slice() != shape {
            return Err(load_error(
                path,
                format!("tensor {full} has shape {found:?}, config.json says {shape:?}"),
            ));
        }
        let len: usize = shape.iter().product();
        if b < a || b - a != len * 4 || *b > data_len || a % 4 != 0 {
            return Err(load_error(path, format!("tensor {full}: bad data offsets")));
        }
        Ok(Span { start: a / 4, len })
    };
    let h = cfg.hidden_size;
    let i = cfg.intermediate_size;
    let lin = |name: &str, out: usize, inp: usize| -> Result<(Span, Span), EmbedError> {
        Ok((
            span(&format!("{name}.weight"), &[out, inp])?,
            span(&format!("{name}.bias"), &[out])?,
        ))
    };
    let norm = |name: &str| -> Result<(Span, Span), EmbedError> {
        Ok((
            span(&format!("{name}.weight"), &[h])?,
            span(&format!("{name}.bias"), &[h])?,
        ))
    };
    let vocab = tensors
        .get(&format!("{prefix}embeddings.word_embeddings.weight"))
        .map_or(0, |t| t.1.first().copied().unwrap_or(0));
    let word = span("embeddings.word_embeddings.weight", &[vocab, h])?;
    let position = span(
        "embeddings.position_embeddings.weight",
        &[cfg.max_position_embeddings, h],
    )?;
    let types = tensors
        .get(&format!("{prefix}embeddings.token_type_embeddings.weight"))
        .map_or(0, |t| t.1.first().copied().unwrap_or(0));
    let token_type = span(
        "embeddings.token_type_embeddings.weight",
        &[types.max(1), h],
    )?;
    let emb_norm = norm("embeddings.LayerNorm")?;
    let mut layers = Vec::new();
    for l in 0..cfg.num_hidden_layers {
        let p = format!("encoder.layer.{l}");
        layers.push(Layer {
            q: lin(&format!("{p}.attention.self.query"), h, h)?,
            k: lin(&format!("{p}.attention.self.key"), h, h)?,
            v: lin(&format!("{p}.attention.self.value"), h, h)?,
            attn_out: lin(&format!("{p}.attention.output.dense"), h, h)?,
            attn_norm: norm(&format!("{p}.attention.output.LayerNorm"))?,
            inter: lin(&format!("{p}.intermediate.dense"), i, h)?,
            out: lin(&format!("{p}.output.dense"), h, i)?,
            out_norm: norm(&format!("{p}.output.LayerNorm"))?,
        });
    }
    let aligned = cfg!(target_endian = "little")
        && (map.as_ptr() as usize + data_start).is_multiple_of(std::mem::align_of::<f32>());
    let storage = if aligned {
        Storage::Mapped {
            map,
            base: data_start,
        }
    } else {
        let floats = map[data_start..]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect();
        Storage::Owned(floats)
    };
    Ok(Weights {
        storage,
        word,
        position,
        token_type,
        emb_norm,
        layers,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_known_values() {
        for (x, want) in [
            (0.0f32, 0.0f32),
            (0.5, 0.520_499_9),
            (1.0, 0.842_700_8),
            (-1.0, -0.842_700_8),
            (2.0, 0.995_322_3),
            (3.5, 0.999_999_3),
        ] {
            assert!((erf(x) - want).abs() < 2e-7, "erf({x}) = {}", erf(x));
        }
    }

    #[test]
    fn softmax_is_a_distribution_and_layer_norm_centres() {
        let mut r = vec![1.0, 2.0, 3.0, 1000.0];
        softmax(&mut r);
        assert!((r.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(r[3] > 0.999);
        let mut x = vec![1.0, 2.0, 3.0, 4.0];
        layer_norm(&mut x, 4, &[1.0; 4], &[0.0; 4], 1e-12);
        assert!(x.iter().sum::<f32>().abs() < 1e-5);
        let var: f32 = x.iter().map(|v| v * v).sum::<f32>() / 4.0;
        assert!((var - 1.0).abs() < 1e-4);
    }
}
