//! `Formula`: a scoring formula parsed under a grammar, evaluated over numpy columns by
//! the library's compiled evaluator, simplified, printed as LaTeX and exported.

use crate::{error, fail};
use freshgp::eval::{Columns, Program, Scratch};
use freshgp::export::{export, Language};
use freshgp::formula::{self, Grammar, Latex, Terminal};
use numpy::{PyArray1, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A scoring formula over page statistics (the book's Formulas chapter).
#[pyclass(module = "freshgp._native", frozen)]
pub struct Formula {
    pub(crate) inner: formula::Formula,
    pub(crate) grammar: Grammar,
    program: Program,
}

impl Formula {
    fn wrap(inner: formula::Formula, grammar: Grammar) -> Formula {
        let program = Program::compile(&inner, grammar.closure());
        Formula {
            inner,
            grammar,
            program,
        }
    }
}

/// The grammar named `name` (basic, all, extended, budget, frequency, predictive, every,
/// basic-reference, all-reference) or read from a RON file.
pub(crate) fn grammar(name: &str) -> PyResult<Grammar> {
    Grammar::named_or_file(name).map_err(|e| fail(format!("grammar: {e}")))
}

/// One input column: a float64 array, or a number standing for every page.
enum Input<'py> {
    Array(PyReadonlyArray1<'py, f64>),
    Scalar(f64),
}

#[pymethods]
impl Formula {
    /// Parses `text` under `grammar` (default `every`, which allows every terminal). A
    /// syntax error quotes the text with a caret under the place, as the CLI does.
    #[new]
    #[pyo3(signature = (text, grammar = "every"))]
    fn new(text: &str, grammar: &str) -> PyResult<Self> {
        let g = crate::formula::grammar(grammar)?;
        let f = formula::Formula::parse(text, &g).map_err(|e| fail(e.quoted(text)))?;
        Ok(Formula::wrap(f, g))
    }

    /// Scores pages: each terminal the formula reads given by name as a float64 array
    /// (one value per page; other numeric dtypes are converted by the package) or as a
    /// number for every page, e.g. `f.eval(t=t, NAD=nad)`. Returns a float64 array. The
    /// library's compiled evaluator runs over the arrays in place, without the GIL.
    #[pyo3(signature = (**columns))]
    fn eval<'py>(
        &self,
        py: Python<'py>,
        columns: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let inputs = inputs(py, columns)?;
        let missing: Vec<Terminal> = self
            .inner
            .terminals()
            .into_iter()
            .filter(|t| !inputs.iter().any(|(given, _)| given == t))
            .collect();
        if !missing.is_empty() {
            return Err(fail(format!(
                "`{}` reads {}: give each as an array or a number",
                self.inner,
                names(&missing)
            )));
        }
        let mut len = None;
        for (terminal, input) in &inputs {
            if let Input::Array(a) = input {
                match len {
                    None => len = Some((a.shape()[0], *terminal)),
                    Some((n, first)) if n != a.shape()[0] => {
                        return Err(fail(format!(
                            "{terminal} holds {} values but {first} holds {n}: one value per page",
                            a.shape()[0]
                        )))
                    }
                    Some(_) => {}
                }
            }
        }
        let len = len.map_or(1, |(n, _)| n);
        let scalars: Vec<(Terminal, Vec<f64>)> = inputs
            .iter()
            .filter_map(|(t, input)| match input {
                Input::Scalar(x) => Some((*t, vec![*x; len])),
                Input::Array(_) => None,
            })
            .collect();
        let mut slices: Vec<(Terminal, &[f64])> = Vec::new();
        for (terminal, input) in &inputs {
            if let Input::Array(a) = input {
                let s = a
                    .as_slice()
                    .map_err(|_| fail(format!("{terminal}: not a contiguous array")))?;
                slices.push((*terminal, s));
            }
        }
        slices.extend(scalars.iter().map(|(t, v)| (*t, v.as_slice())));
        let program = &self.program;
        let out = py.detach(|| {
            // As `freshgp formula eval`: the simulation never gives a formula NaN or ±inf.
            for (terminal, values) in &slices {
                if let Some(p) = values.iter().position(|v| !v.is_finite()) {
                    return Err(fail(format!(
                        "{terminal}[{p}]: {} is not a finite number (terminal values are finite)",
                        values[p]
                    )));
                }
            }
            let mut columns = Columns::new(len);
            for (terminal, values) in &slices {
                columns = columns.with(*terminal, values);
            }
            let mut out = vec![0.0; len];
            program.eval_batch(&columns, &mut out, &mut Scratch::new());
            Ok(out)
        })?;
        Ok(PyArray1::from_vec(py, out))
    }

    /// Constants folded and neutral operations removed (the value never changes).
    fn simplify(&self) -> Formula {
        Formula::wrap(
            self.inner.simplify(self.grammar.closure()),
            self.grammar.clone(),
        )
    }

    /// The formula as LaTeX math.
    fn latex(&self) -> String {
        Latex(&self.inner).to_string()
    }

    /// The source of a self-contained function `name` computing the formula in `lang`:
    /// python, c, java, rust, sql, sql/duckdb, sql/postgres or sql/spark.
    #[pyo3(signature = (lang, name = "score"))]
    fn export(&self, lang: &str, name: &str) -> PyResult<String> {
        let language: Language = lang.parse().map_err(error)?;
        export(&self.inner, self.grammar.closure(), language, name).map_err(error)
    }

    /// The terminals the formula reads, in column order.
    #[getter]
    fn terminals(&self) -> Vec<&'static str> {
        self.inner
            .terminals()
            .into_iter()
            .map(Terminal::name)
            .collect()
    }

    /// The grammar's name.
    #[getter]
    fn grammar(&self) -> String {
        self.grammar.name().to_string()
    }

    /// Nodes in the tree.
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// The tree's depth.
    #[getter]
    fn depth(&self) -> usize {
        self.inner.depth()
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "Formula({:?}, grammar={:?})",
            self.inner.to_string(),
            self.grammar.name()
        )
    }

    fn __eq__(&self, other: &Formula) -> bool {
        self.inner == other.inner && self.grammar.closure() == other.grammar.closure()
    }

    fn __hash__(&self) -> u64 {
        self.inner.structural_hash()
    }
}

/// The columns given to `eval`, by terminal: arrays as float64 arrays (converted by
/// numpy where needed), numbers as numbers; masked arrays and names that are no terminal
/// refused.
fn inputs<'py>(
    py: Python<'py>,
    columns: Option<&Bound<'py, PyDict>>,
) -> PyResult<Vec<(Terminal, Input<'py>)>> {
    let mut inputs: Vec<(Terminal, Input<'py>)> = Vec::new();
    if let Some(columns) = columns {
        let masked = py.import("numpy.ma")?.getattr("isMaskedArray")?;
        for (key, value) in columns.iter() {
            let name: String = key.extract()?;
            if masked.call1((&value,))?.is_truthy()? {
                return Err(fail(format!(
                    "{name}: a masked array; give every page a value (e.g. {name}.filled(0))"
                )));
            }
            let terminal = Terminal::from_name(&name).ok_or_else(|| {
                fail(format!(
                    "`{name}` is not a terminal (expected one of {})",
                    names(&Terminal::ALL)
                ))
            })?;
            let input = match value.extract::<PyReadonlyArray1<'py, f64>>() {
                Ok(a) if a.is_contiguous() => Input::Array(a),
                _ => match value.extract::<f64>() {
                    Ok(x) => Input::Scalar(x),
                    // Other dtypes and layouts: numpy converts, or says why not
                    // (freshgp/_arrays.py).
                    Err(_) => Input::Array(
                        py.import("freshgp._arrays")?
                            .call_method1("float_column", (&name, &value))?
                            .extract()?,
                    ),
                },
            };
            inputs.push((terminal, input));
        }
    }
    Ok(inputs)
}

fn names(terminals: &[Terminal]) -> String {
    terminals
        .iter()
        .map(|t| t.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every terminal's name, in column order.
#[pyfunction]
pub fn terminals() -> Vec<&'static str> {
    Terminal::ALL.iter().map(|t| t.name()).collect()
}
