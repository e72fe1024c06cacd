"""Which figures of a `citesum run` folder its executed notebooks do not show.

A run folder holds, per step, the executed notebook `<step>.ipynb` and the step's folder `<step>/` (its `out_dir`,
figures under it). The project's rule: every figure a step saves is also shown in its notebook. The rule checked here:

- the saved figures of a step are the PNG files anywhere under `<step>/`, except under a folder whose name starts with
  `_` or `.` (`_checks/`: figures a notebook draws only to check itself; caches), as the run index counts them;
- the shown figures are the `image/png` outputs of the code cells of `<step>.ipynb`;
- each saved PNG must be matched to a shown image of its own step, one image for one file, with the same aspect ratio
  (width / height) within `TOLERANCE` (5%, relative). Files are saved at 300 dpi and shown at the inline backend's
  resolution, both cropped tight, so sizes differ but the shape is the same. A shown image can stand for one file only,
  so two saved figures need two shown ones. `unshown_figures` allows an extra shown image; `shown_not_saved` names the
  steps that show one (a figure drawn only for a check, a figure shown twice): a reader sees each figure once.

The steps are those of `run.yaml` (the plan `citesum run` writes), or every `<name>.ipynb` of the folder without one.
A step's figures with no executed notebook (a step not run) are all unshown.
"""
import base64, io, json
from pathlib import Path

from PIL import Image

TOLERANCE = 0.05


def saved_pngs(step_dir) -> list:
    "The PNG files under `step_dir`, outside folders named `_...` or `.…`, sorted"
    step_dir = Path(step_dir)
    if not step_dir.is_dir(): return []
    return sorted(p for p in step_dir.rglob("*.png")
                  if not any(x.startswith(("_", ".")) for x in p.relative_to(step_dir).parts[:-1]))


def shown_sizes(notebook) -> list:
    "(width, height) of every image/png output of the code cells of `notebook`, in order; [] when it is missing"
    notebook = Path(notebook)
    if not notebook.is_file(): return []
    out = []
    for cell in json.loads(notebook.read_text())["cells"]:
        for o in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            data = o.get("data", {}).get("image/png")
            if data:
                with Image.open(io.BytesIO(base64.b64decode("".join(data) if isinstance(data, list) else data))) as im:
                    out.append(im.size)
    return out


def _match(saved:list, shown:list, tolerance:float) -> list:
    "For each saved aspect ratio, the index of its shown image, or None (a maximum one-to-one matching)"
    fits = [[j for j, b in enumerate(shown) if abs(a - b) <= tolerance * max(a, b)] for a in saved]
    owner = {}   # shown index -> saved index
    def augment(i, seen):
        for j in fits[i]:
            if j in seen: continue
            seen.add(j)
            if j not in owner or augment(owner[j], seen): owner[j] = i; return True
        return False
    for i in range(len(saved)): augment(i, set())
    mine = {i: j for j, i in owner.items()}
    return [mine.get(i) for i in range(len(saved))]


def _steps(run_dir:Path) -> list:
    "The step names of a run folder: from run.yaml, else the executed notebooks"
    plan = run_dir/"run.yaml"
    if plan.is_file():
        import yaml
        return [s["name"] for s in (yaml.safe_load(plan.read_text()) or {}).get("steps", [])]
    return sorted(p.stem for p in run_dir.glob("*.ipynb"))


def figure_counts(run_dir) -> dict:
    "step -> (images shown in its notebook, PNG files saved under its folder, saved PNGs not shown)"
    run_dir, out = Path(run_dir), {}
    for step in _steps(run_dir):
        pngs, shown = saved_pngs(run_dir/step), shown_sizes(run_dir/f"{step}.ipynb")
        ratios = []
        for p in pngs:
            with Image.open(p) as im: ratios.append(im.size[0] / im.size[1])
        unmatched = [str(p.relative_to(run_dir)) for p, j in
                     zip(pngs, _match(ratios, [w / h for w, h in shown], TOLERANCE)) if j is None]
        out[step] = (len(shown), len(pngs), unmatched)
    return out


def unshown_figures(run_dir) -> list:
    "Every PNG a step of the run folder saved (outside `_` folders) that its executed notebook does not show, relative to `run_dir`"
    return [p for _, _, unmatched in figure_counts(run_dir).values() for p in unmatched]


def shown_not_saved(run_dir) -> list:
    "'step: N images shown for M figures saved' for each step of the run folder whose notebook shows an image no saved figure matches"
    run_dir, out = Path(run_dir), []
    for step, (shown, saved, unmatched) in figure_counts(run_dir).items():
        if shown > saved - len(unmatched): out.append(f"{step}: {shown} images shown for {saved} figures saved")
    return out
