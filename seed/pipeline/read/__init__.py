"""Read: a JSON file, a CSV folder, a .zip or a workbook into one festival document; its problems in the sheet's terms."""
