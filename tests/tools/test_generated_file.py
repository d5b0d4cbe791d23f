from __future__ import annotations

from tools import generated_file


def test_write_rewrites_the_file_and_no_argument_prints_it(tmp_path, capsys):
    target = tmp_path / "out.md"
    assert generated_file.main(target, lambda: "text\n", ["--write"]) == 0
    assert target.read_text(encoding="utf-8") == "text\n" and capsys.readouterr().out == ""
    assert generated_file.main(target, lambda: "other\n", []) == 0
    assert capsys.readouterr().out == "other\n" and target.read_text(encoding="utf-8") == "text\n"


def test_anything_else_is_one_line_naming_the_file_and_exit_2(tmp_path, capsys):
    assert generated_file.main(tmp_path / "out.md", lambda: "text\n", ["--wrte"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "out.md" in err and "--wrte" in err
    assert not (tmp_path / "out.md").exists()
